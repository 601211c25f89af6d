/**
 * Machines of a team for the team-mode tests (issue 29): a bare repository as the shared remote and
 * clones of it standing for machines (each with its own FOREMAN_HOST), every clone initialised on
 * one real PostgreSQL server with `foreman init --store`, its settings written over the crew tests'
 * fast ones, and its workers added for its host with the demo agent. Serve, status and the agents
 * are the crew harness's (real `foreman` processes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CrewRepo, fastSettings, gitIn, sandboxPath } from '../crew/crewHarness';
import { type TestPostgres, createDatabase } from '../../support/postgres';

let teams = 0;

export class TeamMachines {
  readonly remote: string;
  /** This team's own database on the server (with its password), so that teams of one file share no rows. */
  readonly url: string;

  constructor(private readonly postgres: TestPostgres) {
    const name = `team-${++teams}`;
    this.url = createDatabase(postgres.url, `team_${process.pid}_${teams}`);
    const seed = sandboxPath(`${name}-seed`);
    mkdirSync(seed);
    gitIn(seed, ['init', '--quiet', '-b', 'main']);
    gitIn(seed, ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial']);
    this.remote = sandboxPath(`${name}-remote.git`);
    gitIn(sandboxPath(''), ['clone', '--quiet', '--bare', seed, this.remote]);
  }

  /** The store's URL as `foreman init --store` takes it: no password (that comes from PGPASSWORD). */
  get storeUrl(): string {
    const url = new URL(this.url);
    url.password = '';
    return url.toString();
  }

  /**
   * A clone on machine `host`, on the shared store, with `workers` (demo agents) of its own and
   * `settings` over the fast ones (the remote is always `origin`).
   */
  async machine(host: string, workers: readonly string[], settings: Record<string, unknown> = {}): Promise<CrewRepo> {
    const folder = sandboxPath(`${teams}-${host}`);
    mkdirSync(folder);
    const root = join(folder, 'repo');
    gitIn(folder, ['clone', '--quiet', this.remote, root]);
    const clone = new CrewRepo(root, join(folder, 'worktrees'), { FOREMAN_HOST: host, PGPASSWORD: this.postgres.password });
    await clone.ok(['init', '--store', this.storeUrl]);
    const written = { ...fastSettings, worktreeRoot: clone.worktreeRoot, remote: 'origin', ...settings };
    writeFileSync(join(root, '.foreman', 'settings.json'), JSON.stringify(written, null, 2));
    for (const id of workers) await clone.ok(['worker', 'add', id, '--agent', 'demo', '--host', host]);
    return clone;
  }
}
