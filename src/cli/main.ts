/**
 * The `foreman` command. Parses argv by hand, builds a request, checks it with the request
 * contract (`parseRequest`), routes it to the owner or runs it here, and prints the result.
 * Nothing is ever passed through a shell.
 */
import * as path from 'node:path';
import { type ParsedArgv, globalFlags, parseArgv } from './argv';
import { type CliEnvironment, type CommandSpec, commandGroups, commandTable, findCommand, isMutating } from './commands';
import { type Printer, printFailure, printResult, processPrinter } from './format';
import { helpText, usageOf } from './help';
import { resolveTarget, route } from './route';
import { parseRequest } from '../core/requests';
import { ExitCode, type Result, invalid, ok } from '../core/result';

/** Values of these flags may come before the command words (`foreman --dir x status`). */
const leadingValueFlags = new Set(['--dir', '--request-id']);

function readEnvironment(env: NodeJS.ProcessEnv): CliEnvironment {
  const pick = (name: string): string | undefined => (env[name] !== undefined && env[name] !== '' ? env[name] : undefined);
  return {
    ...(pick('FOREMAN_DIR') !== undefined ? { dir: pick('FOREMAN_DIR')! } : {}),
    ...(pick('FOREMAN_WORKER_ID') !== undefined ? { workerId: pick('FOREMAN_WORKER_ID')! } : {}),
    ...(pick('FOREMAN_ATTEMPT') !== undefined ? { attempt: pick('FOREMAN_ATTEMPT')! } : {}),
    ...(pick('FOREMAN_ENDPOINT') !== undefined ? { endpoint: pick('FOREMAN_ENDPOINT')! } : {}),
    ...(pick('FOREMAN_TOKEN') !== undefined ? { token: pick('FOREMAN_TOKEN')! } : {}),
    debug: env['FOREMAN_DEBUG'] === '1',
  };
}

/** Takes the command words ("worker add") out of argv, wherever the leading global flags put them. */
function splitCommand(argv: readonly string[]): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    const wanted = words.length === 0 || (words.length === 1 && commandGroups.has(words[0]!));
    if (token === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    if (token.startsWith('-') || !wanted) {
      rest.push(token);
      if (words.length === 0 && leadingValueFlags.has(token) && index + 1 < argv.length) rest.push(argv[++index]!);
      continue;
    }
    words.push(token);
  }
  return { words, rest };
}

/** Maps positionals onto the names the spec declares; too few or too many is a usage error. */
function namePositionals(spec: CommandSpec, argv: ParsedArgv): Result<Record<string, string | undefined>> {
  const names = spec.positionals ?? [];
  const named: Record<string, string | undefined> = {};
  for (const [index, declared] of names.entries()) {
    const optional = declared.endsWith('?');
    const name = optional ? declared.slice(0, -1) : declared;
    const value = argv.positionals[index];
    if (value === undefined && !optional)
      return invalid('missingArgument', `${name}: missing; usage: ${usageOf(spec)}`, { argument: name });
    named[name] = value;
  }
  const extra = argv.positionals[names.length];
  if (extra !== undefined)
    return invalid('unexpectedArgument', `unexpected argument '${extra}'; usage: ${usageOf(spec)}`, { argument: extra });
  return ok(named);
}

async function main(argv: readonly string[], env: CliEnvironment, cwd: string, printer: Printer): Promise<number> {
  const json = argv.includes('--json');
  const { words, rest } = splitCommand(argv);
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
    const group = commandGroups.has(words[0]!) ? commandTable.filter((command) => command.name.startsWith(`${words[0]} `)) : [];
    const message = group.length
      ? `'${words.join(' ')}' is not a command; did you mean ${group.map((command) => `\`foreman ${command.name}\``).join(' or ')}? (see \`foreman help\`)`
      : `unknown command '${words[0]}'; run \`foreman help\` for the list.`;
    return printFailure(printer, invalid('unknownCommand', message, { command: words.join(' ') }), json);
  }
  const flagSpec = { ...globalFlags, ...spec.flags, ...(isMutating(spec) ? { 'request-id': 'string' as const } : {}) };
  const parsed = parseArgv(rest, flagSpec);
  if (!parsed.ok) return printFailure(printer, parsed, json);
  if (parsed.value.flags.get('help') === true) {
    for (const line of helpText(spec.name.split(' '))) printer.out(line);
    return ExitCode.ok;
  }
  const positional = namePositionals(spec, parsed.value);
  if (!positional.ok) return printFailure(printer, positional, json);
  const input = { argv: parsed.value, positional: positional.value, env, cwd };
  if (spec.kind === 'local') return spec.run(input);

  const built = spec.build(input);
  if (!built.ok) return printFailure(printer, built, json);
  const requestId = parsed.value.flags.get('request-id');
  const request = parseRequest({ ...built.value, actor: env.workerId ?? 'cli', ...(typeof requestId === 'string' ? { requestId } : {}) });
  if (!request.ok) return printFailure(printer, invalid('invalidRequest', request.message), json);
  const dir = parsed.value.flags.get('dir');
  const target = resolveTarget(typeof dir === 'string' ? dir : undefined, env, cwd);
  const result = await route(target, request.request, { log: (line) => printer.err(`foreman: ${line}`) });
  const code = printResult(printer, request.request.command, result, json);
  if (result.ok && request.request.command === 'worker.add' && target.kind === 'workspace') {
    const note = await agentProfileNote(target.repoRoot, request.request.args.agent);
    if (note) printer.err(`foreman: ${note}`);
  }
  return code;
}

/**
 * A worker whose agent cannot start fails every attempt when it starts: say so now. The profile
 * may live in the VS Code settings (foreman.agents), and the owner may have another PATH, so it is
 * a note or a warning on stderr, not a refusal.
 */
async function agentProfileNote(repoRoot: string, agent: string): Promise<string | undefined> {
  const { profileAvailability } = await import('../infra/agents/availability.js');
  const { loadWorkspaceSettings } = await import('../infra/workspace/settings.js');
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
