/**
 * A Dockerfile as test/deploy-files.test.ts reads it: stages, each with its instructions (continuation
 * lines joined, comments dropped), and what a stage sets, runs and installs, its parents' included.
 * Enough for the forms Rampart's Dockerfile uses (exec-form CMD, `ENV A=1 B=2`); anything else throws.
 */

type Env = Record<string, string>;

export interface Stage {
  readonly name: string;
  readonly from: string;
  readonly instructions: readonly { readonly op: string; readonly args: string }[];
}

/** The stages of a Dockerfile: continuation lines joined, comments dropped. */
export function parseDockerfile(text: string): Stage[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const stages: { name: string; from: string; instructions: { op: string; args: string }[] }[] = [];
  for (const line of logical) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (match === null) {
        throw new Error(`FROM line not understood: ${line}`);
      }
      stages.push({ from: match[1] ?? '', name: match[2] ?? '', instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      if (op.toUpperCase() === 'ARG') {
        continue;
      }
      throw new Error(`instruction before FROM: ${line}`);
    }
    stage.instructions.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

/** A stage's instructions with those of the stages it is built FROM first. */
export function stageChain(stages: readonly Stage[], name: string): Stage['instructions'] {
  const stage = stages.find((candidate) => candidate.name === name);
  if (stage === undefined) {
    throw new Error(`Dockerfile has no stage ${name}`);
  }
  const parent = stages.some((candidate) => candidate.name === stage.from)
    ? stageChain(stages, stage.from)
    : [];
  return [...parent, ...stage.instructions];
}

/** ENV of a stage (inherited ones included); `ENV A=1 B=2` form only. */
export function stageEnv(stages: readonly Stage[], name: string): Env {
  const env: Env = {};
  for (const { op, args } of stageChain(stages, name)) {
    if (op !== 'ENV') {
      continue;
    }
    for (const pair of args.split(/\s+/)) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(pair);
      if (match === null) {
        throw new Error(`ENV not in NAME=value form: ${args}`);
      }
      env[match[1] ?? ''] = match[2] ?? '';
    }
  }
  return env;
}

/** The last CMD of a stage, in exec form. */
export function stageCmd(stages: readonly Stage[], name: string): string[] {
  const cmd = stageChain(stages, name)
    .filter((instruction) => instruction.op === 'CMD')
    .at(-1);
  if (cmd === undefined) {
    throw new Error(`stage ${name} has no CMD`);
  }
  return JSON.parse(cmd.args) as string[];
}

/** The user a stage's process runs as: its last USER, root when none. */
export function stageUser(stages: readonly Stage[], name: string): string {
  return (
    stageChain(stages, name)
      .filter((instruction) => instruction.op === 'USER')
      .at(-1)?.args ?? 'root'
  );
}

/** Debian packages a stage installs with apt-get install. */
export function aptPackages(stages: readonly Stage[], name: string): Set<string> {
  const packages = new Set<string>();
  for (const { op, args } of stageChain(stages, name)) {
    if (op !== 'RUN') {
      continue;
    }
    for (const command of args.split('&&')) {
      const words = command.trim().split(/\s+/);
      if (words[0] === 'apt-get' && words.includes('install')) {
        for (const word of words.slice(words.indexOf('install') + 1)) {
          if (!word.startsWith('-')) {
            packages.add(word);
          }
        }
      }
    }
  }
  return packages;
}

export function runsInStage(stages: readonly Stage[], name: string, command: RegExp): boolean {
  return stageChain(stages, name).some(({ op, args }) => op === 'RUN' && command.test(args));
}
