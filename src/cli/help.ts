import { commandTable, findCommand, usageOf } from './commands';

export { usageOf } from './commands';

/** The whole help, or one command's. */
export function helpText(words: readonly string[] = []): string[] {
  const spec = words.length ? findCommand(words) : undefined;
  if (spec) return [usageOf(spec), '', `  ${spec.summary}`, '', ...commonOptions];
  return [
    'foreman: run a crew of AI coding agents on one git repository.',
    '',
    'Usage: foreman <command> [arguments] [--dir <repo>] [--json]',
    '',
    'Commands:',
    ...commandTable.flatMap((command) => [`  ${command.name}${command.usage ? ` ${command.usage}` : ''}`, `      ${command.summary}`]),
    '  help [<command>]',
    "      this text, or one command's",
    '  --version, -V',
    "      Foreman's version",
    '',
    ...commonOptions,
    '',
    'Environment:',
    '  FOREMAN_DIR        stands in for --dir',
    '  FOREMAN_WORKER_ID  the worker of heartbeat/submit/fail when none is named; recorded as the actor (else "cli")',
    "  FOREMAN_ATTEMPT    the --attempt of heartbeat/submit/fail for FOREMAN_WORKER_ID's own worker",
    "  FOREMAN_ENDPOINT, FOREMAN_TOKEN  an owner's socket and token, used when neither --dir nor FOREMAN_DIR is given",
    '  FOREMAN_DEBUG=1    print the stack of unexpected errors',
    '',
    'Routing: when a live owner (foreman serve, a VS Code window) holds the workspace, requests go to its',
    'endpoint; otherwise this command takes the lock itself, applies the request durably and releases it.',
    '',
    'Exit codes: 0 done; 2 bad input, naming the field and the rule (also: no Foreman in that folder, run',
    '`foreman init`); 3 refused (illegal transition, stale attempt, owned by another process); 4 not found;',
    '1 unexpected.',
  ];
}

const commonOptions = [
  'Options every command takes:',
  '  --dir <repo>       exactly this repository (default: the current folder, searching upwards for .foreman/)',
  '  --json             print the result as JSON on one line; errors as {"error":{kind,code,message,details}} on stdout',
  '  --request-id <id>  (commands that change state) the same id twice applies once and returns the first result',
];
