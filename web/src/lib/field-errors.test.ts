import { describe, expect, it } from 'vitest';
import { fieldOfError, optionPathOf } from './field-errors.js';

describe('fieldOfError', () => {
  it('reads the field the body codes name in their message', () => {
    expect(fieldOfError('MISSING_REQUIRED_FIELD', 'Missing required field: target')).toBe('target');
    expect(
      fieldOfError('INVALID_FIELD_TYPE', 'Field options.topPorts must be of type integer'),
    ).toBe('options.topPorts');
    expect(
      fieldOfError(
        'INVALID_FIELD_VALUE',
        'Invalid value for field options.ports: 99999 is not a list of ports',
      ),
    ).toBe('options.ports');
    expect(
      fieldOfError('INVALID_FIELD_VALUE', 'Invalid value for field options.authentication.type: x'),
    ).toBe('options.authentication.type');
  });

  it('knows the field of the codes that are about one', () => {
    expect(fieldOfError('INVALID_TARGET', 'Invalid target: not a host')).toBe('target');
    expect(fieldOfError('TARGET_NOT_ALLOWED', 'Target not allowed: private')).toBe('target');
    expect(fieldOfError('INVALID_PRIORITY', 'Invalid priority: x')).toBe('priority');
    expect(fieldOfError('TEMPLATE_NOT_FOUND', 'Template not found')).toBe('templateId');
    expect(fieldOfError('SCAN_TYPE_NOT_ALLOWED', 'Scan type not allowed')).toBe('scanType');
  });

  it('names no field for the others', () => {
    expect(fieldOfError('QUOTA_EXCEEDED', 'Monthly scan quota exceeded')).toBeNull();
    expect(fieldOfError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable: x')).toBeNull();
  });
});

describe('optionPathOf', () => {
  const paths = ['ports', 'scripts', 'authentication.type', 'authentication.password'];
  it('finds the option field, or the nearest one above it', () => {
    expect(optionPathOf('options.ports', paths)).toBe('ports');
    expect(optionPathOf('options.scripts.2', paths)).toBe('scripts');
    expect(optionPathOf('options.authentication.type', paths)).toBe('authentication.type');
  });
  it('is null outside the options or for a field the form does not have', () => {
    expect(optionPathOf('target', paths)).toBeNull();
    expect(optionPathOf(null, paths)).toBeNull();
    expect(optionPathOf('options.unknown', paths)).toBeNull();
    expect(optionPathOf('options', paths)).toBeNull();
  });
});
