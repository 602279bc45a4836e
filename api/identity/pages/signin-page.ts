// Pure: the /signin page.
import { escapeHtml, page } from '../../shared/html.ts';
import { type FieldErrors, field, formMessage, formStyles, hidden } from './form-kit.ts';

export interface SigninView {
  csrf: string;
  returnTo: string;
  email?: string;
  errors?: FieldErrors;
  message?: string;
}

export function renderSigninPage(v: SigninView): string {
  const errors = v.errors ?? {};
  const signup = `/signup?return_to=${encodeURIComponent(v.returnTo)}`;
  return page(
    'Sign in to Colony',
    `${formStyles}
<h1>Sign in to Colony</h1>
<form class="card" method="post" action="/signin" novalidate>
${formMessage(v.message)}
${hidden('_csrf', v.csrf)}${hidden('return_to', v.returnTo)}
${field({ name: 'email', label: 'Email', type: 'email', value: v.email ?? '', autocomplete: 'username' }, errors)}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' }, errors)}
<button type="submit">Sign in</button>
<p class="muted">No account yet? <a href="${escapeHtml(signup)}">Sign up</a>.</p>
</form>`,
  );
}
