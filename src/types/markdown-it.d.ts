/**
 * The part of markdown-it's API Foreman uses (block tokens with their source lines). markdown-it
 * ships no types and `@types/markdown-it` would be one more dependency for five fields.
 */
declare module 'markdown-it' {
  namespace MarkdownIt {
    /** One block or inline token of `parse`. */
    interface Token {
      readonly type: string;
      /** Nesting depth: 0 for the document's own blocks. */
      readonly level: number;
      /** Source lines [first, after last), 0-based; null on closing tokens. */
      readonly map: [number, number] | null;
      readonly content: string;
    }
  }
  class MarkdownIt {
    constructor(presetName?: 'commonmark' | 'default' | 'zero');
    parse(source: string, env: object): MarkdownIt.Token[];
  }
  export = MarkdownIt;
}
