/**
 * The `foreman` command's entry (dist/cli.js). Most calls come from agents to a running owner
 * (heartbeats, submits, status) and are over before Node has loaded zod, sql.js and the engine, so
 * this entry does only that: it reads the command line with the same specs as the full CLI, finds
 * the owner the same way (FOREMAN_ENDPOINT + FOREMAN_TOKEN, or `.foreman/endpoint.json`), sends the
 * request unparsed, and prints the answer with the same printers. The owner's endpoint parses it
 * with the zod contract, as it does every request line, before anything runs.
 *
 * A routable command line the full CLI would refuse (an unknown flag, a missing argument, a number
 * that is not one) gets the same message here: the specs, parser and builders are the same.
 * Everything else goes to the full CLI (dist/cli-local.js), which then does all the work from the
 * start: any command that is not routable (init, serve, help, wait, chain add…), no owner to
 * answer, or an answer that says the owner did not run the request (a request that fails the zod
 * contract, a bad token, a line too long). Nothing is sent before that decision that could have been
 * applied, so each call is carried out once, and prints and exits exactly as the full CLI would.
 */
import * as path from 'node:path';
import { parseArgv, stringFlag } from './argv';
import { flagsOf, namePositionals, readEnvironment, splitCommand } from './commandLine';
import { findRoutable, routableGroups } from './commands/routable';
import type { CliEnvironment, RequestDraft } from './commands/spec';
import { printFailure, printResult, processPrinter } from './format';
import { answerOf, resolveTarget, sendToOwnerAt } from './target';
import { idPattern } from '../core/idPattern';
import { ExitCode, type Failure } from '../core/result';
import { allowedToolsVariable, claudeGateVariable } from '../core/claudePermissions';
import { hookRequest, sayHookRefusal } from './thinHook';
import { foremanDir, isInitialised, maxLineBytes, readOwner, type SendOutcome } from '../host/endpointAccess';

/** A request as the full CLI would send it, before the owner parses it. */
interface Routed {
  readonly request: RequestDraft & { readonly actor: string; readonly requestId?: string };
  readonly dir: string | undefined;
}

/** Answers that mean the owner ran nothing: the full CLI says what is wrong in its own words. */
const notRunCodes: ReadonlySet<string> = new Set(['badRequest', 'badEndpointToken', 'badLine', 'lineTooLong']);

/** What the thin CLI makes of a command line: a request to send, or a usage error to print. */
type Reading = { readonly kind: 'send'; readonly routed: Routed } | { readonly kind: 'refuse'; readonly failure: Failure };

/**
 * The request for a routable command line, the usage error the full CLI would print for it (the
 * same spec, parser and builder give the same failure), or undefined when the full CLI should read it.
 */
function readCommandLine(argv: readonly string[], env: CliEnvironment, cwd: string): Reading | undefined {
  const { words, rest } = splitCommand(argv, routableGroups);
  const spec = findRoutable(words);
  if (!spec) return undefined;
  // The full CLI names a bad FOREMAN_WORKER_ID with zod's rule; sent as the actor, the owner would name "actor".
  if (env.workerId !== undefined && !idPattern.test(env.workerId)) return undefined;
  const parsed = parseArgv(rest, flagsOf(spec));
  if (!parsed.ok) return { kind: 'refuse', failure: parsed };
  if (parsed.value.flags.get('help') === true) return undefined;
  const positional = namePositionals(spec, parsed.value);
  if (!positional.ok) return { kind: 'refuse', failure: positional };
  const built = spec.build({ argv: parsed.value, positional: positional.value, env, cwd });
  if (!built.ok) return { kind: 'refuse', failure: built };
  const requestId = stringFlag(parsed.value, 'request-id');
  const request = { ...built.value, actor: env.workerId ?? 'cli', ...(requestId !== undefined ? { requestId } : {}) };
  return { kind: 'send', routed: { request, dir: stringFlag(parsed.value, 'dir') } };
}

/** Sends to the owner the full CLI would send to; undefined when there is none announced. */
function sendToTarget(request: object, dirFlag: string | undefined, env: CliEnvironment, cwd: string): Promise<SendOutcome> | undefined {
  const target = resolveTarget(dirFlag, env, cwd);
  if (target.kind === 'endpoint') return sendToOwnerAt(target.address, request);
  const dir = foremanDir(target.repoRoot);
  if (!isInitialised(dir) || readOwner(dir)?.endpoint === undefined) return undefined;
  return sendToOwnerAt({ foremanDir: dir }, request);
}

/** Sends to the owner the full CLI would send to; undefined when it would not send at all. */
async function sendToOwner(routed: Routed, env: CliEnvironment, cwd: string): Promise<SendOutcome | undefined> {
  // The owner refuses a longer line unread; the full CLI may refuse such a request before sending.
  if (Buffer.byteLength(JSON.stringify({ token: '', request: routed.request })) > maxLineBytes - 1024) return undefined;
  const sent = await sendToTarget(routed.request, routed.dir, env, cwd);
  // Unreachable and denied sent nothing; the full CLI waits for an owner, or runs the request here.
  if (!sent || sent.kind === 'unreachable' || sent.kind === 'denied') return undefined;
  if (sent.kind === 'response' && !sent.response.result.ok && notRunCodes.has(sent.response.result.code)) return undefined;
  return sent;
}

/** The exit code once the call is answered here; undefined hands the whole call to the full CLI. */
async function thin(argv: readonly string[], env: CliEnvironment, cwd: string): Promise<number | undefined> {
  if (argv[0] === 'hook') return thinHook(argv, env, cwd);
  const json = argv.includes('--json');
  const reading = readCommandLine(argv, env, cwd);
  if (reading?.kind === 'refuse') return print(env, json, () => printFailure(processPrinter, reading.failure, json));
  const sent = reading && (await sendToOwner(reading.routed, env, cwd));
  if (!reading || !sent) return undefined;
  const { command } = reading.routed.request;
  return print(env, json, () => printResult(processPrinter, command, answerOf(command, sent), json));
}

/** `foreman hook claude` with an owner to answer it (thinHook.ts); undefined hands it to the full CLI. */
async function thinHook(argv: readonly string[], env: CliEnvironment, cwd: string): Promise<number | undefined> {
  const call = hookRequest(argv, env, process.env[claudeGateVariable] ?? process.env[allowedToolsVariable]);
  const request = call?.request;
  // A payload too long for one request line (a large Write): the full CLI sends its activity only.
  if (!call || !request || Buffer.byteLength(JSON.stringify({ token: '', request })) > maxLineBytes - 1024) return undefined;
  const sent = await sendToTarget(request, undefined, env, cwd);
  // Unreachable and denied sent nothing: the full CLI waits for an owner, or runs the hook itself.
  if (!sent || sent.kind === 'unreachable' || sent.kind === 'denied') return undefined;
  // A bad token or line is the full CLI's to explain; a payload the owner's contract refuses is said here.
  if (sent.kind === 'response' && !sent.response.result.ok) {
    const { code } = sent.response.result;
    if (code !== 'badRequest' && notRunCodes.has(code)) return undefined;
  }
  const answer = answerOf('heartbeat', sent);
  if (call.decisionLine !== undefined) process.stdout.write(`${call.decisionLine}\n`);
  return answer.ok ? ExitCode.ok : sayHookRefusal(answer.message);
}

/** Prints as the full CLI's run() does: a closed pipe ends quietly, a bug says where to look. */
function print(env: CliEnvironment, json: boolean, printing: () => number): number {
  // `foreman status | head` closes the pipe early; that is not an error worth a stack.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  try {
    return printing();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    printFailure(processPrinter, { ok: false, kind: 'unexpected', code: 'internalError', message: `unexpected error: ${message}` }, json);
    if (env.debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    else process.stderr.write('foreman: set FOREMAN_DEBUG=1 to see the stack.\n');
    return ExitCode.unexpected;
  }
}

/**
 * The full CLI, bundled beside this file; it reads process.argv and runs when loaded. `require`,
 * not `import()`: Node's ESM loader would first scan the 1.8 MB CommonJS bundle for its exports.
 */
function runFullCli(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path known only at run time, loaded on demand
  require(path.join(__dirname, 'cli-local.js'));
}

function run(): void {
  const argv = process.argv.slice(2);
  thin(argv, readEnvironment(process.env), process.cwd()).then(
    (code) => {
      if (code === undefined) runFullCli();
      else process.exitCode = code;
    },
    // Nothing was sent when discovery itself fails (say, an unreadable .foreman/): the full CLI reports it.
    () => runFullCli(),
  );
}

run();
