// The part of Go's text/template that HostnameGenerator templates use: text, `{{ .Field }}` and
// `{{ label "key" }}` actions, with `{{-`/`-}}` trimming. Anything else is refused when the template
// is read, so a template meshdesk accepts renders as Kuma renders it.

export class TemplateError extends Error {}

type Part = { text: string } | { field: string } | { label: string };
export type Template = readonly Part[];

export interface TemplateInput {
  data: Readonly<Record<string, string>>;
  /** `label "key"`: the value, or a thrown TemplateError when the resource has no such label. */
  label: (key: string) => string;
}

const ACTION = /\{\{(-\s)?\s*(.*?)\s*(\s-)?\}\}/gs;

export function parseTemplate(text: string): Template {
  const parts: Part[] = [];
  let last = 0;
  let trimNext = false;
  for (const match of text.matchAll(ACTION)) {
    let literal = text.slice(last, match.index);
    if (trimNext) literal = literal.trimStart();
    if (match[1] !== undefined) literal = literal.trimEnd();
    if (literal !== '') parts.push({ text: literal });
    parts.push(readAction(match[2] ?? ''));
    trimNext = match[3] !== undefined;
    last = match.index + match[0].length;
  }
  const rest = text.slice(last);
  if (rest.includes('{{')) throw new TemplateError('template: :1: unclosed action');
  const literal = trimNext ? rest.trimStart() : rest;
  if (literal !== '') parts.push({ text: literal });
  return parts;
}

function readAction(action: string): Part {
  const field = /^\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(action);
  if (field) return { field: field[1]! };
  const label = /^label\s+"((?:[^"\\]|\\.)*)"$/.exec(action);
  if (label) return { label: JSON.parse(`"${label[1]}"`) as string };
  if (action === '') throw new TemplateError('template: :1: missing value for command');
  const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(action)?.[0];
  if (word !== undefined && word !== 'label') throw new TemplateError(`template: :1: function "${word}" not defined`);
  throw new TemplateError(`template: :1: meshdesk reads only {{ .Field }} and {{ label "key" }} actions, not {{ ${action} }}`);
}

export function renderTemplate(template: Template, input: TemplateInput): string {
  return template
    .map((part) => {
      if ('text' in part) return part.text;
      if ('label' in part) return input.label(part.label);
      const value = input.data[part.field];
      if (value === undefined) throw new TemplateError(`template: :1: executing "" at <.${part.field}>: can't evaluate field ${part.field}`);
      return value;
    })
    .join('');
}
