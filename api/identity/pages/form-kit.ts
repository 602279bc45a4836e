// Pure HTML pieces shared by the identity pages: fields, error summaries, the form styles.
import { escapeHtml } from '../../shared/html.ts';

export const formStyles = `<style>
  form.card { border: 1px solid #d9d4ea; border-radius: .5rem; padding: 1.25rem; max-width: 26rem; }
  label { display: block; font-weight: 600; margin-top: .75rem; }
  input[type=text], input[type=email], input[type=password] { width: 100%; padding: .45rem; font: inherit; box-sizing: border-box; }
  button { margin-top: 1rem; padding: .5rem 1rem; font: inherit; background: #4b2db3; color: #fff; border: 0; border-radius: .3rem; cursor: pointer; }
  button.secondary { background: #e8e4f6; color: #1d1b26; }
  .error { color: #a3142c; } .errors { border: 1px solid #a3142c; border-radius: .4rem; padding: .5rem 1rem; }
  table { border-collapse: collapse; } td, th { border-bottom: 1px solid #e8e4f6; padding: .3rem .6rem; text-align: left; }
  .secret { font-family: monospace; background: #fff7d6; padding: .5rem; border-radius: .3rem; word-break: break-all; }
</style>`;

export type FieldErrors = Record<string, string>;

export interface FieldSpec {
  name: string;
  label: string;
  type: 'text' | 'email' | 'password';
  value?: string;
  autocomplete: string;
  hint?: string;
}

export function field(f: FieldSpec, errors: FieldErrors): string {
  const error = errors[f.name];
  const id = `f-${f.name}`;
  const described = error ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  return `<label for="${id}">${escapeHtml(f.label)}</label>
<input id="${id}" name="${f.name}" type="${f.type}" autocomplete="${f.autocomplete}" required${
    f.value !== undefined && f.type !== 'password' ? ` value="${escapeHtml(f.value)}"` : ''
  }${described}>
${f.hint ? `<small class="muted">${escapeHtml(f.hint)}</small>` : ''}${
  error ? `<p class="error" id="${id}-error">${escapeHtml(error)}</p>` : ''
}`;
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

/** A banner for errors that belong to no single field (wrong password, taken email, rate limit). */
export function formMessage(message: string | undefined): string {
  return message ? `<div class="errors" role="alert"><p class="error">${escapeHtml(message)}</p></div>` : '';
}
