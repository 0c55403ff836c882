// SPDX-License-Identifier: MIT
// What the Chromium tests' drivers share (tests/t2011-submit-form.js,
// tests/t2022-alert-triage.js): the page's DevTools endpoint of a
// headless Chromium started with --remote-debugging-port=0 (read from
// its DevToolsActivePort file), and a small DevTools protocol client
// over node's WebSocket: send(method, params) answers the result,
// once(event) the next event of that name; evaluate(expr) a value in the
// page; load(action) runs action and waits for the page's load event.
'use strict';
const fs = require('fs');

async function devtools(portFile) {
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
	let id = 0;
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
			pending.set(++id, { ok, fail });
			ws.send(JSON.stringify({ id, method, params }));
		}),
		once: (method) => new Promise((ok) => waiters.push({ method, ok })),
	};
}

async function session(portFile) {
	const ws = new WebSocket(await devtools(portFile));
	await new Promise((ok) => { ws.onopen = ok; });
	const c = client(ws);
	c.ws = ws;
	c.evaluate = async (expr) => (await c.send('Runtime.evaluate',
		{ expression: expr, returnByValue: true })).result.value;
	c.load = async (action) => {
		const l = c.once('Page.loadEventFired');
		await action();
		await l;
	};
	await c.send('Page.enable');
	await c.send('Runtime.enable');
	return c;
}

module.exports = { devtools, client, session };
