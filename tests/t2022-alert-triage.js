// SPDX-License-Identifier: MIT
// Drives headless Chromium over the DevTools protocol for
// t2022-alert-triage-chromium.sh: sign in at /login?next=/alerts/ID with
// a token, then, on the alert's page, pick "acknowledged" in its state
// form and press the button; then pick "fixed", type the commit that
// fixed it and press it again, as a user does.  Prints as JSON where
// the browser landed and the state the page showed after each step.
// usage: node --experimental-websocket t2022-alert-triage.js PORT_FILE URL TOKEN ID COMMIT
'use strict';
const fs = require('fs');

const [portFile, url, token, id, commit] = process.argv.slice(2);

async function devtools() {
	for (let i = 0; i < 200; i++) {
		if (fs.existsSync(portFile)) {
			const port = fs.readFileSync(portFile, 'utf8').split('\n')[0];
			if (port) {
				const r = await fetch(`http://127.0.0.1:${port}/json/list`);
				const t = (await r.json()).find((x) => x.type === 'page');
				if (t) return t.webSocketDebuggerUrl;
			}
		}
		await new Promise((ok) => setTimeout(ok, 100));
	}
	throw new Error('no DevTools port');
}

function client(ws) {
	let n = 0;
	const pending = new Map(), waiters = [];
	ws.onmessage = (m) => {
		const msg = JSON.parse(m.data);
		if (msg.id && pending.has(msg.id)) {
			const { ok, fail } = pending.get(msg.id);
			pending.delete(msg.id);
			msg.error ? fail(new Error(JSON.stringify(msg.error))) : ok(msg.result);
		} else if (msg.method) {
			for (const w of waiters.splice(0))
				w.method === msg.method ? w.ok(msg.params) : waiters.push(w);
		}
	};
	return {
		send: (method, params = {}) => new Promise((ok, fail) => {
			pending.set(++n, { ok, fail });
			ws.send(JSON.stringify({ id: n, method, params }));
		}),
		once: (method) => new Promise((ok) => waiters.push({ method, ok })),
	};
}

async function main() {
	const ws = new WebSocket(await devtools());
	await new Promise((ok) => { ws.onopen = ok; });
	const c = client(ws);
	const evaluate = async (expr) => (await c.send('Runtime.evaluate',
		{ expression: expr, returnByValue: true })).result.value;
	const load = async (action) => {
		const l = c.once('Page.loadEventFired');
		await action();
		await l;
	};
	// pick state in the page's state form (and type fields), press it
	const triage = async (state, fields) => {
		const ok = await evaluate(`(() => {
			const f = document.getElementById('triage-state');
			if (!f) return false;
			f.querySelector('select[name=state]').value = ${JSON.stringify(state)};
			for (const [k, v] of Object.entries(${JSON.stringify(fields)}))
				f.querySelector('[name=' + k + ']').value = v;
			return true; })()`);
		if (!ok) throw new Error(`no state form on ${await evaluate('location.href')}`);
		await load(() => evaluate(`document.getElementById('state-go').click(); 1`));
		return {
			at: await evaluate('location.pathname'),
			state: await evaluate(`document.querySelector('b#state').textContent`),
			error: await evaluate(`(document.getElementById('error') || {}).textContent || ''`),
		};
	};
	await c.send('Page.enable');
	await c.send('Runtime.enable');
	await load(() => c.send('Page.navigate', { url: `${url}/login?next=/alerts/${id}` }));
	await load(() => evaluate(`document.querySelector('input[name=token]').value = ${JSON.stringify(token)};
		document.querySelector('form').submit(); 1`));
	const signed = await evaluate('location.pathname');
	const ack = await triage('acknowledged', { comment: 'mine, looking' });
	const fixed = await triage('fixed', { commit, comment: 'fixed upstream' });
	const log = await evaluate(`document.getElementById('log').innerText`);
	console.log(JSON.stringify({ signed, ack, fixed, log }));
	ws.close();
}

main().then(() => process.exit(0), (e) => { console.error(String(e)); process.exit(1); });
