/**
 * A result's value already written as JSON text, in parts built in pages between other requests
 * (statusPages.ts): the endpoint sends the parts as they are, one socket write each, rather than
 * stringifying (or joining) a 30 MB value in one turn. Anything else that stringifies it gets the
 * same JSON.
 */
export class SerializedValue {
  constructor(readonly parts: readonly string[]) {}

  /** The whole text: for tests and in-process callers, not the endpoint. */
  get json(): string {
    return this.parts.join('');
  }

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}
