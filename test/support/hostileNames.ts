/**
 * Names that must never reach a shell, an option parser or git's ref namespace (issue 3: "hostile
 * names and paths"). Every layer that takes an id or a branch name is tested with all of them.
 */
export const hostileNames: readonly string[] = [
  '$(touch /tmp/pwned)',
  '`touch /tmp/pwned`',
  'a;touch /tmp/pwned',
  '--upload-pack=x',
  '-x',
  'a..b',
  'x.lock',
  'a b',
  'a'.repeat(400),
];
