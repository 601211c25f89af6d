/**
 * The `foreman` command. Parses argv by hand, builds a request, checks it with the request
 * contract (`parseRequest`), routes it to the owner or runs it here, and prints the result.
 * Nothing is ever passed through a shell.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgv } from './argv';
import { flagsOf, namePositionals, readEnvironment, splitCommand } from './commandLine';
import { type CliEnvironment, commandGroups, commandTable, findCommand } from './commands';
import { type Printer, printFailure, printResult, processPrinter } from './format';
import { helpText } from './help';
import { type Target, resolveTarget, route } from './route';
import { foremanVersion } from './version';
import { workerIdSchema } from '../core/ids';
import { type CommandName, parseRequest } from '../core/requests';
import { ExitCode, type Failure, type Result, invalid, ok, refused } from '../core/result';
import { loadWorkspaceSettings, profileAvailability, StoreError, storeFailure } from '../host/infraParts';
import { type EndpointAnswer, foremanDirName } from '../host/endpointAccess';

async function main(argv: readonly string[], env: CliEnvironment, cwd: string, printer: Printer): Promise<number> {
  const json = argv.includes('--json');
  const { words, rest } = splitCommand(argv, commandGroups);
  if (words.length === 0 && rest.some((token) => token === '--version' || token === '-V')) {
    printer.out(json ? JSON.stringify({ version: foremanVersion }) : `foreman ${foremanVersion}`);
    return ExitCode.ok;
  }
  if (words.length === 0 || words[0] === 'help') {
    if (words.length === 0 && !rest.some((token) => token === '--help' || token === '-h')) {
      return printFailure(printer, invalid('missingCommand', 'no command given; run `foreman help` for the list.'), json);
    }
    const topic = [...words.slice(1), ...rest.filter((token) => !token.startsWith('-'))];
    for (const line of helpText(topic)) printer.out(line);
    return ExitCode.ok;
  }
  const spec = findCommand(words);
  if (!spec) {
    const [first] = words;
    const group =
      first !== undefined && commandGroups.has(first) ? commandTable.filter((command) => command.name.startsWith(`${first} `)) : [];
    const message = group.length
      ? `'${words.join(' ')}' is not a command; did you mean ${group.map((command) => `\`foreman ${command.name}\``).join(' or ')}? (see \`foreman help\`)`
      : `unknown command '${words[0]}'; run \`foreman help\` for the list.`;
    return printFailure(printer, invalid('unknownCommand', message, { command: words.join(' ') }), json);
  }
  const parsed = parseArgv(rest, flagsOf(spec));
  if (!parsed.ok) return printFailure(printer, parsed, json);
  if (parsed.value.flags.get('help') === true) {
    for (const line of helpText(spec.name.split(' '))) printer.out(line);
    return ExitCode.ok;
  }
  const positional = namePositionals(spec, parsed.value);
  if (!positional.ok) return printFailure(printer, positional, json);
  const input = { argv: parsed.value, positional: positional.value, env, cwd };
  if (spec.kind === 'local') return spec.run(input);

  const workerId = checkWorkerIdVariable(env);
  if (!workerId.ok) return printFailure(printer, workerId, json);
  const built = spec.build(input);
  if (!built.ok) return printFailure(printer, built, json);
  const requestId = parsed.value.flags.get('request-id');
  const request = parseRequest({ ...built.value, actor: env.workerId ?? 'cli', ...(typeof requestId === 'string' ? { requestId } : {}) });
  if (!request.ok) return printFailure(printer, invalid('invalidRequest', request.message), json);
  const dir = parsed.value.flags.get('dir');
  const target = resolveTarget(typeof dir === 'string' ? dir : undefined, env, cwd);
  const routed = await route(target, request.request, { log: (line) => printer.err(`foreman: ${line}`) });
  const result = explainHiddenWorkspace(routed, target);
  const code = printResult(printer, request.request.command, result, json);
  if (result.ok && request.request.command === 'worker.add' && target.kind === 'workspace') {
    const note = agentProfileNote(target.repoRoot, request.request.args.agent);
    if (note) printer.err(`foreman: ${note}`);
  }
  return code;
}

/**
 * FOREMAN_WORKER_ID is both the default worker and the actor; a bad value is named as the
 * variable, not as the "actor" field the person never typed.
 */
function checkWorkerIdVariable(env: CliEnvironment): Result<undefined> {
  if (env.workerId === undefined) return ok(undefined);
  const checked = workerIdSchema.safeParse(env.workerId);
  if (checked.success) return ok(undefined);
  const rule = checked.error.issues[0]?.message ?? 'not a worker id';
  return invalid(
    'badEnvironment',
    `FOREMAN_WORKER_ID: ${rule} (got '${env.workerId}'); Foreman sets it for its agents, so unset it or name a worker.`,
    { variable: 'FOREMAN_WORKER_ID' },
  );
}

/** File-system errors that mean "this workspace cannot be used by you, here" rather than a bug. */
const environmentErrnos = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/**
 * Expected conditions that surface as exceptions (a damaged store, a `.foreman/` that is read-only
 * or another user's): refused (exit 3) with what is wrong and what to do, not "unexpected".
 */
function environmentFailure(error: unknown): Failure | undefined {
  if (error instanceof StoreError) return storeFailure(error);
  const errno = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || errno.code === undefined || !environmentErrnos.has(errno.code)) return undefined;
  const file = errno.path ?? 'a file';
  const details = { errno: errno.code, path: file };
  switch (errno.code) {
    case 'EROFS':
      return refused(
        'readOnly',
        `${file} is on a read-only file system; Foreman must write in .foreman/ even to read (lock, journal): run it where the workspace is writable.`,
        details,
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return refused('diskFull', `no space left to write ${file} (${errno.code}); free some space and run the command again.`, details);
    default:
      return refused('permissionDenied', permissionMessage(file), details);
  }
}

/** Says whose the file (or its folder) is, because "permission denied" alone does not say what to do. */
function permissionMessage(file: string): string {
  const owner = ownerOf(file) ?? ownerOf(path.dirname(file));
  const me = process.getuid?.();
  if (owner !== undefined && me !== undefined && owner.uid !== me) {
    return `permission denied on ${file}: this workspace's Foreman state belongs to uid ${owner.uid} and you are uid ${me}; run foreman as that user (.foreman/ is private to its owner).`;
  }
  const marker = `${path.sep}${foremanDirName}`;
  const folder =
    file.includes(`${marker}${path.sep}`) || file.endsWith(marker)
      ? file.slice(0, file.lastIndexOf(marker) + marker.length)
      : path.dirname(file);
  return `permission denied on ${file}: it or its folder is read-only; Foreman writes in .foreman/ even to read (lock, journal), so make it writable (chmod -R u+rwX '${folder}') and try again.`;
}

/**
 * A `.foreman/` this user cannot search looks absent to the workspace lookup, which then says
 * "No Foreman here": say whose it is instead.
 */
function explainHiddenWorkspace<C extends CommandName>(result: EndpointAnswer<C>, target: Target): EndpointAnswer<C> {
  if (result.ok || result.code !== 'notInitialised' || target.kind !== 'workspace') return result;
  const dir = path.join(target.repoRoot, foremanDirName);
  try {
    if (!fs.statSync(dir).isDirectory()) return result;
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.X_OK);
    return result;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') return result;
    return refused('permissionDenied', permissionMessage(dir), { errno: code, path: dir });
  }
}

function ownerOf(file: string): { uid: number } | undefined {
  try {
    return { uid: fs.statSync(file).uid };
  } catch {
    return undefined;
  }
}

/**
 * A worker whose agent cannot start fails every attempt when it starts: say so now. The profile
 * may live in the VS Code settings (foreman.agents), and the owner may have another PATH, so it is
 * a note or a warning on stderr, not a refusal.
 */
function agentProfileNote(repoRoot: string, agent: string): string | undefined {
  const settings = loadWorkspaceSettings(path.join(repoRoot, '.foreman'));
  const availability = profileAvailability(agent, settings.ok ? settings.value.crew.agents : {}, repoRoot);
  switch (availability.status) {
    case 'found':
      return undefined;
    case 'notFound':
      return (
        `warning: the agent command '${availability.command}' of profile '${agent}' is not found on PATH; ` +
        `this worker's tasks will fail when they start unless it is installed (or the profile's command names where it is).`
      );
    case 'invalid':
      if (availability.code !== 'unknownAgentProfile') return undefined;
      return `note: ${availability.message} Unless your VS Code settings define foreman.agents.${agent}, this worker's tasks will fail when it starts.`;
  }
}

function run(): void {
  // `foreman status | head` closes the pipe early; that is not an error worth a stack.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const env = readEnvironment(process.env);
  const argv = process.argv.slice(2);
  main(argv, env, process.cwd(), processPrinter).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const expected = environmentFailure(error);
      if (expected) {
        process.exitCode = printFailure(processPrinter, expected, argv.includes('--json'));
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      printFailure(
        processPrinter,
        { ok: false, kind: 'unexpected', code: 'internalError', message: `unexpected error: ${message}` },
        argv.includes('--json'),
      );
      if (env.debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
      else process.stderr.write('foreman: set FOREMAN_DEBUG=1 to see the stack.\n');
      process.exitCode = ExitCode.unexpected;
    },
  );
}

run();
