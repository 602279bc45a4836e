// Pure: the authorization server's own pages (device code entry, confirmation, success, errors).
import { escapeHtml, page } from '../../shared/html.ts';
import { formStyles } from '../pages/form-kit.ts';

const shell = (title: string, body: string) => page(title, `${formStyles}\n${body}`);

/** `form` is oidc-provider's whole <form> (code input and CSRF field); the button submits it. */
export function deviceCodeInputPage(form: string, error: string | undefined): string {
  const message = error
    ? `<div class="errors" role="alert"><p class="error">${escapeHtml(error)}</p></div>`
    : '';
  return shell(
    'Connect a device',
    `<h1>Connect a device</h1>
<p>Enter the code your device (for example <code>colony login</code>) shows.</p>
${message}
${form}
<button type="submit" form="op.deviceInputForm">Continue</button>`,
  );
}

export function deviceConfirmPage(form: string, clientName: string, userCode: string): string {
  return shell(
    'Confirm the device',
    `<h1>Confirm the device</h1>
<p><strong>${escapeHtml(clientName)}</strong> asks to connect to your Colony account. Continue only if your device
shows this code and you started this yourself:</p>
<p class="secret" id="user-code">${escapeHtml(userCode)}</p>
${form}
<button type="submit" form="op.deviceConfirmForm">Continue</button>
<button class="secondary" type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Cancel</button>`,
  );
}

export function deviceSuccessPage(clientName: string): string {
  return shell(
    'Device connected',
    `<h1>Device connected</h1>
<p>${escapeHtml(clientName)} is now connected to your account. You can close this page and return to your device.</p>`,
  );
}

export function authorizationErrorPage(out: { error?: string; error_description?: string }): string {
  const error = out.error ?? 'server_error';
  const description = out.error_description ?? '';
  return shell(
    'Authorization failed',
    `<h1>This authorization request cannot continue</h1>
<p><code id="error">${escapeHtml(error)}</code></p>
<p id="error-description">${escapeHtml(description)}</p>
<p class="muted">Return to the application that sent you here and start again.</p>`,
  );
}
