// SPDX-License-Identifier: MIT
// Drives headless Chromium over the DevTools protocol for
// t2026-home-chromium.sh: loads the home page as a person does, reads
// its status line (text, class, and whether it comes before every
// section), the rows of open regressions (each row's alert link and
// culprit), then, when there is a row, clicks the first row's alert link
// and reads where the browser landed and the state that page shows.
// Prints it all as JSON.
// usage: node --experimental-websocket t2026-home.js PORT_FILE URL
'use strict';
const { session } = require('./cdp-lib.js');

const [portFile, url] = process.argv.slice(2);

async function main() {
	const c = await session(portFile);
	const { evaluate, load } = c;
	await load(() => c.send('Page.navigate', { url: `${url}/` }));
	const home = await evaluate(`(() => {
		const s = document.getElementById('status');
		const first = document.querySelector('main section');
		return {
			status: s ? s.innerText : null,
			cls: s ? s.className : null,
			first: !!(s && first && (s.compareDocumentPosition(first) &
				Node.DOCUMENT_POSITION_FOLLOWING)),
			visible: !!(s && s.getBoundingClientRect().top < window.innerHeight),
			rows: [...document.querySelectorAll('tr.regression')].map((r) => ({
				alert: r.querySelector('a.alert').getAttribute('href'),
				title: r.querySelector('a.alert').innerText,
				culprit: r.querySelector('td.culprit').innerText,
			})),
		}; })()`);
	let clicked = null;
	if (home.rows.length) {
		await load(() => evaluate(`document.querySelector('tr.regression a.alert').click(); 1`));
		clicked = {
			at: await evaluate('location.pathname'),
			state: await evaluate(`(document.querySelector('b#state') || {}).textContent || ''`),
		};
	}
	console.log(JSON.stringify({ home, clicked }));
	c.ws.close();
}

main().then(() => process.exit(0), (e) => { console.error(String(e)); process.exit(1); });
