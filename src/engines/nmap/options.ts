import { Type } from '@sinclair/typebox';
import { PortList, ToolWords } from '../option-types.js';

/** nmap options (specification, "Engine options"). */
export const nmapOptionsSchema = Type.Object(
  {
    ports: Type.Optional({ ...PortList, default: '1-1024' }),
    timing: Type.Optional(
      Type.String({ enum: ['T0', 'T1', 'T2', 'T3', 'T4', 'T5'], default: 'T3' }),
    ),
    serviceDetection: Type.Optional(Type.Boolean({ default: true })),
    osDetection: Type.Optional(Type.Boolean({ default: false })),
    scriptScan: Type.Optional(Type.Boolean({ default: false })),
    scripts: Type.Optional(ToolWords('NSE script categories')),
    udpScan: Type.Optional(Type.Boolean({ default: false })),
    topPorts: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  },
  { additionalProperties: false },
);
