/**
 * DOM building without markup: every piece of state becomes a text node or an attribute value,
 * never HTML, so a task called `<img src=x onerror=alert(1)>` is shown as those characters.
 * Attributes that could load or run something are refused outright.
 */

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  readonly class?: string;
  readonly attrs?: Readonly<Record<string, string | number | boolean | null | undefined>>;
  readonly on?: { readonly [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

const forbidden = /^(on|src$|srcdoc$|href$|xlink:href$|style$|action$|formaction$)/i;

function apply(element: Element, props: Props, children: readonly Child[]): void {
  if (props.class) element.setAttribute('class', props.class);
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (forbidden.test(name)) throw new Error(`refusing to set attribute ${name}`);
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [event, handler] of Object.entries(props.on ?? {})) element.addEventListener(event, handler as EventListener);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, props, children);
  return element;
}

/** A toolkit web component (`vscode-button`, `vscode-dropdown`…). */
export function custom(tag: `vscode-${string}`, props: Props = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  apply(element, props, children);
  return element;
}

const svgNamespace = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNamespace, tag);
  apply(element, props, children);
  return element;
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  apply(parent, {}, children);
}
