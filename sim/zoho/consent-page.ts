/** The HTML pages of the simulated accounts server: the consent page and the error page. Plain forms, no script. */
import type { SimResponse } from '../common/sim-server.js';

const HTML_TYPE = { 'content-type': 'text/html; charset=utf-8' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
${body}
</body>
</html>
`;
}

/** A form that posts the authorization request's parameters back, so the decision carries the request unchanged. */
function decisionForm(action: string, params: URLSearchParams, label: string): string {
  const hidden = [...params].map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('\n');
  return `<form method="post" action="${action}">
${hidden}
<button type="submit">${label}</button>
</form>`;
}

export interface ConsentPageInput {
  clientName: string;
  scopes: string[];
  params: URLSearchParams;
  approveAction: string;
  rejectAction: string;
}

export function consentPage({ clientName, scopes, params, approveAction, rejectAction }: ConsentPageInput): SimResponse {
  const items = scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('\n');
  const body = `<h1>${escapeHtml(clientName)} would like to access your Zoho account</h1>
<p>It asks for these permissions:</p>
<ul id="scopes">
${items}
</ul>
${decisionForm(approveAction, params, 'Accept')}
${decisionForm(rejectAction, params, 'Reject')}`;
  return { status: 200, body: page('Zoho Accounts: authorize', body), headers: HTML_TYPE };
}

export function errorPage(status: number, message: string): SimResponse {
  return { status, body: page('Zoho Accounts: error', `<h1>An error occurred</h1>\n<p id="error">${escapeHtml(message)}</p>`), headers: HTML_TYPE };
}
