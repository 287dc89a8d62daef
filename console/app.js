// @ts-check
/**
 * The admin console of crm-sync, over the admin JSON API (`/api`). It holds no data and no token: the token is
 * exchanged once for an HttpOnly session cookie (`POST /admin/session`), and `GET /api/me` says who is signed in and
 * with which role. This module signs in and out, routes between the screens (the location's hash: `#overview`,
 * `#logs`, `#inbox/<id>`, `#project/<id>`, …), refreshes, and starts a reconciliation; each screen is a module.
 * Served with a CSP of `script-src 'self'; style-src 'self'`: no inline script, style or markup.
 */
import { AuthError, api, describe, failed, onUnauthorized } from './api.js';
import { initAlerts, initSettings } from './alerts.js';
import { initAutomations } from './automations.js';
import { initConnections } from './connections.js';
import { $, clearNotice, inlineMessage, notify, setRole, show } from './dom.js';
import { initInbox } from './inbox.js';
import { initMappings } from './mappings.js';
import { initOverview } from './overview.js';
import { initProject } from './project.js';
import { initRevenue } from './revenue.js';
import { initSuggestions } from './suggestions.js';
import { initSyncLog } from './sync-log.js';

const AUTO_KEY = 'crm-sync.auto-refresh';
const REFRESH_MS = 10000;

/** @type {{ signedIn: boolean, screen: string | null, arg: string, timer: ReturnType<typeof setInterval> | null }} */
const session = { signedIn: false, screen: null, arg: '', timer: null };

const logs = initSyncLog({ showTab: () => go('logs') });
/** A screen: `show(arg, refresh)` draws it (`arg` from the hash, `#project/123`); a refresh keeps what is typed. */
/** @typedef {{ show: (arg: string, refresh?: boolean) => unknown }} Screen */
/** @type {Record<string, Screen>} */
const screens = {
  overview: initOverview(),
  revenue: initRevenue(),
  project: initProject(),
  inbox: initInbox(),
  logs,
  mappings: initMappings({ refreshAll, loadCounters: logs.loadCounters, signedIn: () => session.signedIn }),
  suggestions: initSuggestions(),
  automations: initAutomations(),
  alerts: initAlerts(),
  settings: initSettings(),
  connections: initConnections(),
};

// ---- sign in / out ----

/** @param {string} [message] */
function showLogin(message) {
  $('app').hidden = true;
  $('login').hidden = false;
  const msg = $('login-message');
  msg.textContent = message || '';
  msg.hidden = !message;
  $('login-button', HTMLButtonElement).disabled = false;
  $('token-input', HTMLInputElement).focus();
}

/** @param {string} [message] */
function signedOut(message) {
  session.signedIn = false;
  stopTimer();
  showLogin(message);
}

onUnauthorized(() => signedOut(session.signedIn ? 'Your session has ended (401). Sign in again.' : ''));

/** @param {{ name?: string, role?: string }} me `GET /api/me` */
function enterApp(me) {
  session.signedIn = true;
  setRole(me && me.role ? show(me.role) : 'viewer');
  $('whoami').textContent = show(me && me.name) + ' · ' + show(me && me.role);
  $('login').hidden = true;
  $('app').hidden = false;
  $('auto-refresh', HTMLInputElement).checked = sessionStorage.getItem(AUTO_KEY) === 'on';
  applyAuto();
  route();
  logs.loadCounters();
}

/** Asks who the session is: the console, or the sign-in prompt. */
/** @param {string} [messageOnFailure] */
function whoAmI(messageOnFailure) {
  return api('GET', '/api/me', undefined, { noSignOut: true, accept: [401] }).then(
    (me) => (me && me.role ? enterApp(me) : signedOut(messageOnFailure)),
    (err) => signedOut('Could not ask the daemon who you are: ' + describe(err)),
  );
}

$('login-form', HTMLFormElement).addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $('token-input', HTMLInputElement);
  const token = input.value.trim();
  if (!token) {
    showLogin('Enter the admin token.');
    return;
  }
  input.value = '';
  $('login-button', HTMLButtonElement).disabled = true;
  $('login-message').hidden = true;
  let status = 0;
  api('POST', '/admin/session', { token }, { noSignOut: true, accept: [401], status: (s) => (status = s) }).then(
    () => {
      if (status === 401) showLogin('That token was refused (401 Unauthorized). Check it and try again.');
      else whoAmI('Signed in, but the daemon does not see the session cookie (is the page served over plain http behind https?).');
    },
    (err) => showLogin('Could not sign in: ' + describe(err)),
  );
});

$('logout-button', HTMLButtonElement).addEventListener('click', () => {
  clearNotice();
  api('DELETE', '/admin/session', undefined, { noSignOut: true }).then(
    () => signedOut(''),
    (err) => {
      if (!(err instanceof AuthError)) inlineMessage($('logout-button', HTMLButtonElement), 'error', 'Sign-out failed: ' + describe(err));
    },
  );
});

// ---- screens ----

/**
 * @param {string} screen
 * @param {string} [arg]
 */
function go(screen, arg) {
  const hash = '#' + screen + (arg ? '/' + encodeURIComponent(arg) : '');
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

/** Shows the screen the hash names (Overview when it names none). */
function route() {
  if (!session.signedIn) return;
  const [name, ...rest] = window.location.hash.replace(/^#/, '').split('/');
  const screen = screens[name] ? name : 'overview';
  const arg = rest.length ? decodeURIComponent(rest.join('/')) : '';
  session.screen = screen;
  session.arg = arg;
  for (const key of Object.keys(screens)) $('panel-' + key).hidden = key !== screen;
  for (const tab of document.querySelectorAll('.tabs a[data-screen]')) {
    if (tab instanceof HTMLElement && tab.dataset.screen === screen) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  if (screen !== 'project') $('project-search-input', HTMLInputElement).value = '';
  screens[screen].show(arg);
}
window.addEventListener('hashchange', route);

$('project-search', HTMLFormElement).addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $('project-search-input', HTMLInputElement);
  const id = input.value.trim();
  if (!/^\d+$/.test(id)) {
    inlineMessage($('project-search', HTMLFormElement).lastElementChild || input, 'error', 'A project id is a string of digits.');
    return;
  }
  go('project', id);
});

function refreshAll() {
  logs.loadCounters();
  if (session.screen) screens[session.screen].show(session.arg, true);
}

function stopTimer() {
  if (session.timer) {
    clearInterval(session.timer);
    session.timer = null;
  }
}

function applyAuto() {
  stopTimer();
  if ($('auto-refresh', HTMLInputElement).checked) {
    session.timer = setInterval(() => {
      // Not while a confirmation is open: redrawing its row would take it away.
      if (document.hidden || !session.signedIn || document.querySelector('.confirm')) return;
      refreshAll();
    }, REFRESH_MS);
  }
}

$('auto-refresh', HTMLInputElement).addEventListener('change', () => {
  sessionStorage.setItem(AUTO_KEY, $('auto-refresh', HTMLInputElement).checked ? 'on' : 'off');
  applyAuto();
});
$('refresh-button', HTMLButtonElement).addEventListener('click', refreshAll);
$('notice-close', HTMLButtonElement).addEventListener('click', clearNotice);

// ---- reconcile ----

/** Starts a reconciliation pass: `changes` (what changed since the last pass) or `full` (every mapped project). */
/**
 * @param {HTMLButtonElement} button
 * @param {'changes' | 'full'} scope
 */
function startReconcile(button, scope) {
  const what = scope === 'full' ? 'A full reconciliation pass' : 'Reconciliation';
  button.disabled = true;
  api('POST', '/api/reconcile', scope === 'full' ? { scope } : undefined)
    .then(
      (res) => {
        const id = res && res.id !== undefined ? show(res.id) : '';
        notify('ok', what + ' started' + (id ? ' (run ' + id + ').' : '.'));
        logs.loadCounters();
      },
      (err) => {
        if (err.status === 404) notify('info', 'Reconcile is not available on this daemon (POST /api/reconcile answered 404).');
        else if (err.status === 409) notify('info', 'A reconciliation run is already going: ' + err.message);
        else if (err.status === 403) inlineMessage(button, 'error', describe(err));
        else failed('Starting ' + what.toLowerCase() + ' failed')(err);
      },
    )
    .then(() => {
      button.disabled = false;
    });
}

$('reconcile-button', HTMLButtonElement).addEventListener('click', () => startReconcile($('reconcile-button', HTMLButtonElement), 'changes'));
$('reconcile-full-button', HTMLButtonElement).addEventListener('click', () => startReconcile($('reconcile-full-button', HTMLButtonElement), 'full'));

// ---- start ----

whoAmI('');
