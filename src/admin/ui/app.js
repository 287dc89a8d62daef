/**
 * The admin console of crm-sync, over the admin JSON API (`/api`). It holds no data itself: the admin enters
 * ADMIN_TOKEN once, the page keeps it in sessionStorage (this tab only) and sends it on every call. This module
 * signs in and out, switches tabs, refreshes, and starts a reconciliation; the tabs live in sync-log.js and
 * mappings.js. Served with a CSP of `script-src 'self'; style-src 'self'`: no inline script, style or markup.
 */
import { ApiError, AuthError, TOKEN_KEY, api, failed, onUnauthorized } from './api.js';
import { $, clearNotice, notify, show } from './dom.js';
import { initMappings } from './mappings.js';
import { initSyncLog } from './sync-log.js';

const AUTO_KEY = 'crm-sync.auto-refresh';
const REFRESH_MS = 10000;

const session = { signedIn: false, tab: 'logs', timer: null };

const logs = initSyncLog({
  showTab: () => {
    if (session.tab !== 'logs') selectTab('logs');
  },
});
const mappings = initMappings({ refreshAll, loadCounters: logs.loadCounters, signedIn: () => session.signedIn });

// ---- sign in / out ----

function showLogin(message) {
  $('app').hidden = true;
  $('login').hidden = false;
  const msg = $('login-message');
  msg.textContent = message || '';
  msg.hidden = !message;
  $('login-button').disabled = false;
  $('token-input').focus();
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  session.signedIn = false;
  stopTimer();
  showLogin(message);
}

onUnauthorized((refused) =>
  signOut(
    !refused
      ? ''
      : session.signedIn
        ? 'The daemon no longer accepts your admin token (401). Enter it again.'
        : 'That token was refused (401 Unauthorized). Check ADMIN_TOKEN and try again.',
  ),
);

function enterApp() {
  session.signedIn = true;
  $('login').hidden = true;
  $('app').hidden = false;
  $('auto-refresh').checked = sessionStorage.getItem(AUTO_KEY) === 'on';
  applyAuto();
  refreshAll();
}

$('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $('token-input');
  const token = input.value.trim();
  if (!token) {
    showLogin('Enter the admin token.');
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  input.value = '';
  $('login-button').disabled = true;
  $('login-message').hidden = true;
  session.signedIn = false;
  api('GET', '/api/sync-logs?limit=1').then(enterApp, (err) => {
    if (err instanceof AuthError) return;
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin('Could not check the token: ' + err.message);
  });
});

$('logout-button').addEventListener('click', () => {
  clearNotice();
  signOut('');
});

// ---- tabs, refresh ----

function selectTab(tab) {
  session.tab = tab;
  $('tab-logs').setAttribute('aria-selected', String(tab === 'logs'));
  $('tab-mappings').setAttribute('aria-selected', String(tab === 'mappings'));
  $('panel-logs').hidden = tab !== 'logs';
  $('panel-mappings').hidden = tab !== 'mappings';
  if (tab === 'logs') logs.load(false);
  else mappings.load(false);
}
$('tab-logs').addEventListener('click', () => selectTab('logs'));
$('tab-mappings').addEventListener('click', () => selectTab('mappings'));

function refreshAll() {
  logs.loadCounters();
  if (session.tab === 'logs') logs.load(false);
  else mappings.load(false);
}

function stopTimer() {
  if (session.timer) {
    clearInterval(session.timer);
    session.timer = null;
  }
}

function applyAuto() {
  stopTimer();
  if ($('auto-refresh').checked) {
    session.timer = setInterval(() => {
      if (document.hidden || !session.signedIn) return;
      refreshAll();
    }, REFRESH_MS);
  }
}

$('auto-refresh').addEventListener('change', () => {
  sessionStorage.setItem(AUTO_KEY, $('auto-refresh').checked ? 'on' : 'off');
  applyAuto();
});
$('refresh-button').addEventListener('click', refreshAll);
$('notice-close').addEventListener('click', clearNotice);

// ---- reconcile ----

$('reconcile-button').addEventListener('click', () => {
  const button = $('reconcile-button');
  button.disabled = true;
  api('POST', '/api/reconcile')
    .then(
      (res) => {
        const id = res && res.id !== undefined ? show(res.id) : '';
        notify('ok', 'Reconciliation started' + (id ? ' (run ' + id + ').' : '.'));
        logs.loadCounters();
      },
      (err) => {
        if (err instanceof ApiError && err.status === 404) notify('info', 'Reconcile is not available on this daemon (POST /api/reconcile answered 404).');
        else if (err instanceof ApiError && err.status === 409) notify('info', 'A reconciliation run is already going: ' + err.message);
        else failed('Starting a reconciliation failed')(err);
      },
    )
    .then(() => {
      button.disabled = false;
    });
});

// ---- start ----

if (sessionStorage.getItem(TOKEN_KEY)) enterApp();
else showLogin('');
