// SPDX-License-Identifier: MIT
// Drives headless Chromium over the DevTools protocol for
// t2011-submit-form-chromium.sh: sign in at /login?next=/submit with a
// token, fill the /submit form, choose patch files in its file input
// (DOM.setFileInputFiles, as a user picking them), press submit, and
// print where the browser landed and the page's text as JSON.
// usage: node --experimental-websocket t2011-submit-form.js PORT_FILE URL TOKEN BASE FILE...
// KLAB_FORM_FIELDS="name=value ..." in the environment types those values
// into the form's fields of those names too.
'use strict';
const { devtools, client } = require('./cdp-lib.js');

const [portFile, url, token, base, ...files] = process.argv.slice(2);

async function main() {
	const ws = new WebSocket(await devtools(portFile));
	await new Promise((ok) => { ws.onopen = ok; });
	const c = client(ws);
	const evaluate = async (expr) => (await c.send('Runtime.evaluate',
		{ expression: expr, returnByValue: true })).result.value;
	const load = async (action) => {
		const l = c.once('Page.loadEventFired');
		await action();
		await l;
	};
	await c.send('Page.enable');
	await c.send('Runtime.enable');
	await load(() => c.send('Page.navigate', { url: `${url}/login?next=/submit` }));
	await load(() => evaluate(`document.querySelector('input[name=token]').value = ${JSON.stringify(token)};
		document.querySelector('form').submit(); 1`));
	const form = await evaluate('location.pathname');
	await evaluate(`document.getElementById('base').value = ${JSON.stringify(base)}; 1`);
	for (const kv of (process.env.KLAB_FORM_FIELDS || '').split(' ').filter(Boolean)) {
		const [k, v] = [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)];
		const ok = await evaluate(`(() => { const e = document.querySelector('form [name=${JSON.stringify(k)}]');
			if (!e) return false; e.value = ${JSON.stringify(v)}; return true; })()`);
		if (!ok) throw new Error(`the form has no field '${k}'`);
	}
	const doc = await c.send('DOM.getDocument');
	const input = await c.send('DOM.querySelector', { nodeId: doc.root.nodeId, selector: '#files' });
	await c.send('DOM.setFileInputFiles', { nodeId: input.nodeId, files });
	await load(() => evaluate(`document.getElementById('go').click(); 1`));
	const landed = await evaluate('location.pathname');
	const text = await evaluate('document.body.innerText');
	console.log(JSON.stringify({ form, landed, text }));
	ws.close();
}

main().then(() => process.exit(0), (e) => { console.error(String(e)); process.exit(1); });
