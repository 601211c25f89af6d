/** Returns the demo repository's path (default `<root>/.demo/demo-repo`); builds it on first use. */
export function ensureDemoRepo(root: string, dir?: string): string;
