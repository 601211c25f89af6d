/**
 * One port per worker, handed to its setup command and agent as FOREMAN_PORT, so several workers
 * can each run a dev server without colliding. Assignments live in `.foreman/ports.json`: a worker
 * keeps its port across tasks and owner restarts, and no two workers ever hold the same one.
 * Only the owner process writes this file (ARCHITECTURE §2), so read-modify-write needs no lock.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { idPattern } from '../../core/ids';
import { describeIssues } from '../../core/zodIssues';
import { type Result, invalid, ok, refused } from '../../core/result';
import type { PortRange } from '../../engine/settings';
import { writeFileAtomic } from '../fs/atomicFile';

export const portsFileName = 'ports.json';

const portsFileSchema = z
  .object({
    version: z.literal(1),
    ports: z.record(z.string().regex(idPattern, 'a worker id'), z.number().int().min(1).max(65535)),
  })
  .strict()
  .superRefine((file, context) => {
    const owners = new Map<number, string>();
    for (const [workerId, port] of Object.entries(file.ports)) {
      const other = owners.get(port);
      if (other !== undefined) context.addIssue({ code: 'custom', message: `port ${port} is held by both ${other} and ${workerId}` });
      owners.set(port, workerId);
    }
  });
type PortsFile = z.infer<typeof portsFileSchema>;

export function describeRange(range: PortRange): string {
  return `${range.from}-${range.to}`;
}

/** Reads and writes `<foremanDir>/ports.json`. */
export class WorkerPorts {
  private readonly file: string;

  constructor(private readonly foremanDir: string) {
    this.file = join(foremanDir, portsFileName);
  }

  /**
   * The worker's port: the one it already holds when that is still inside `range`, otherwise the
   * lowest port of the range no other worker holds (recorded before it is returned).
   */
  assign(workerId: string, range: PortRange): Result<number> {
    const checked = checkWorkerId(workerId);
    if (!checked.ok) return checked;
    const file = this.read();
    if (!file.ok) return file;
    const ports = file.value.ports;
    const held = ports[workerId];
    if (held !== undefined && held >= range.from && held <= range.to) return ok(held);

    const taken = new Set(Object.entries(ports).flatMap(([owner, port]) => (owner === workerId ? [] : [port])));
    let port = range.from;
    while (port <= range.to && taken.has(port)) port += 1;
    if (port > range.to) {
      const size = range.to - range.from + 1;
      return refused(
        'portRangeFull',
        `No free port for worker ${workerId} in the range ${describeRange(range)}: all ${size} are held by other workers. Widen the port range (foreman.setup.portRange, or portRange in .foreman/settings.json) or remove workers.`,
        { workerId, range },
      );
    }
    this.write({ version: 1, ports: { ...ports, [workerId]: port } });
    return ok(port);
  }

  /** Frees a removed worker's port for the next new worker. */
  release(workerId: string): Result<void> {
    const checked = checkWorkerId(workerId);
    if (!checked.ok) return checked;
    const file = this.read();
    if (!file.ok) return file;
    if (file.value.ports[workerId] === undefined) return ok(undefined);
    const ports = Object.fromEntries(Object.entries(file.value.ports).filter(([owner]) => owner !== workerId));
    this.write({ version: 1, ports });
    return ok(undefined);
  }

  /**
   * A missing file means no port was handed out yet. A damaged one is refused, never reset: a reset
   * would give running workers' ports to others, and two dev servers would fight over one port.
   */
  private read(): Result<PortsFile> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok({ version: 1, ports: {} });
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return this.damaged(`it is not valid JSON (${(error as Error).message})`);
    }
    const parsed = portsFileSchema.safeParse(json);
    return parsed.success ? ok(parsed.data) : this.damaged(describeIssues(parsed.error));
  }

  private damaged(reason: string): Result<never> {
    return refused(
      'portsFileDamaged',
      `${this.file} is damaged: ${reason}. Fix it, or delete it to hand out ports afresh (workers may then get other ports).`,
      { file: this.file },
    );
  }

  private write(file: PortsFile): void {
    mkdirSync(this.foremanDir, { recursive: true });
    const sorted = Object.fromEntries(Object.entries(file.ports).sort(([a], [b]) => a.localeCompare(b)));
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, ports: sorted }, null, 2)}\n`);
  }
}

function checkWorkerId(workerId: string): Result<string> {
  if (idPattern.test(workerId)) return ok(workerId);
  return invalid('invalidWorkerId', `The worker id ${JSON.stringify(workerId)} is not valid: use 1-63 lowercase letters, digits and '-'.`, {
    id: workerId,
  });
}
