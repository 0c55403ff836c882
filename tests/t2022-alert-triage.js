// SPDX-License-Identifier: MIT
// Drives headless Chromium over the DevTools protocol for
// t2022-alert-triage-chromium.sh: sign in at /login?next=/alerts/ID with
// a token, then, on the alert's page, pick "acknowledged" in its state
// form and press the button; then pick "fixed", type the commit that
// fixed it and press it again, as a user does.  Prints as JSON where
// the browser landed and the state the page showed after each step.
// usage: node --experimental-websocket t2022-alert-triage.js PORT_FILE URL TOKEN ID COMMIT
'use strict';
const { session } = require('./cdp-lib.js');

const [portFile, url, token, id, commit] = process.argv.slice(2);

async function main() {
	const c = await session(portFile);
	const { evaluate, load } = c;
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
	await load(() => c.send('Page.navigate', { url: `${url}/login?next=/alerts/${id}` }));
	await load(() => evaluate(`document.querySelector('input[name=token]').value = ${JSON.stringify(token)};
		document.querySelector('form').submit(); 1`));
	const signed = await evaluate('location.pathname');
	const ack = await triage('acknowledged', { comment: 'mine, looking' });
	const fixed = await triage('fixed', { commit, comment: 'fixed upstream' });
	const log = await evaluate(`document.getElementById('log').innerText`);
	console.log(JSON.stringify({ signed, ack, fixed, log }));
	c.ws.close();
}

main().then(() => process.exit(0), (e) => { console.error(String(e)); process.exit(1); });
