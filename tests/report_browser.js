// report_browser.js - opens a `scxprof report` page from disk in Debian's
// headless chromium (playwright-core, no browser download), saves a
// screenshot and prints what the rendered DOM shows as one JSON object:
// cells, subcells (merged or not), heatmap labels and cells per heatmap,
// every network request the page made (the page itself excluded), script
// errors and dialogs (an injected alert() would show as one).
// Usage: node report_browser.js REPORT.html SCREENSHOT.png [WIDTHxHEIGHT [SCALE]]
// (with a size the screenshot is of that viewport only, at SCALE device pixels per CSS pixel)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules/playwright-core'));

async function main() {
	const [file, shot, size, scale] = process.argv.slice(2);
	if (!file || !shot) { console.error('usage: report_browser.js REPORT.html SCREENSHOT.png [WxH]'); process.exit(2); }
	const [w, h] = (size || '1200x900').split('x').map(Number);
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'scxprof-chromium-'));
	// a fresh, empty profile directory (playwright passes it as --user-data-dir)
	// playwright's 30 s default bounds (launch, goto, the screenshot's wait for
	// fonts) are a timing assertion: at load ~20 a 200-unit full-page
	// screenshot took longer ("page rendered in chromium: - fonts loaded").
	// The page is a local file, so only a hang needs a bound: 10 min.
	const bound = 600000;
	const browser = await chromium.launchPersistentContext(profile, {
		timeout: bound,
		executablePath: '/usr/bin/chromium',
		headless: true,
		viewport: { width: w, height: h },
		deviceScaleFactor: Number(scale || 1),
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	try {
		const page = await browser.newPage();
		page.setDefaultTimeout(bound);
		page.setDefaultNavigationTimeout(bound);
		const url = 'file://' + path.resolve(file);
		const requests = [], errors = [], dialogs = [];
		page.on('request', r => { if (r.url() !== url) requests.push(r.url()); });
		page.on('pageerror', e => errors.push(String(e)));
		page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
		page.on('dialog', d => { dialogs.push(d.message()); d.dismiss(); });
		await page.goto(url, { waitUntil: 'load' });
		const dom = await page.evaluate(() => {
			const q = (s, root) => Array.from((root || document).querySelectorAll(s));
			return {
				title: document.title,
				header: q('dl.facts dt').map(e => e.textContent),
				cells: q('li.cell').map(e => e.dataset.name),
				subcells: q('li.subcell').map(e => ({ name: e.dataset.name, units: Number(e.dataset.units),
					merged: !!e.querySelector(':scope > .merged') })),
				heatmaps: q('svg.heatmap').map(s => ({
					units: Number(s.dataset.units), rows: Number(s.dataset.rows),
					rowLabels: q('text.hm-row', s).map(t => t.childNodes[t.childNodes.length - 1].textContent),
					colLabels: q('text.hm-col', s).map(t => t.childNodes[t.childNodes.length - 1].textContent),
					rowNames: q('text.hm-row', s).map(t => t.dataset.name),
					colNames: q('text.hm-col', s).map(t => t.dataset.name),
					cells: q('rect.hm-cell', s).map(r => r.dataset.row + '\u0000' + r.dataset.col),
					titles: q('rect.hm-cell > title', s).length,
					clusters: q('rect.hm-cluster', s).length,
					visible: s.getBoundingClientRect().width > 0,
				})),
				foldNotes: q('.fold-note').map(e => e.textContent),
				merges: q('div.merge').map(e => ({ name: e.dataset.name, members: q('table.members tr', e).length - 1 })),
				cpuCharts: q('svg.cpu-chart').map(s => ({ windows: Number(s.dataset.windows),
					series: q('polygon.cpu-series', s).length })),
				config: (document.getElementById('config') || {}).textContent || '',
				vtext: (document.getElementById('vtext') || {}).textContent || '',
				scripts: q('script').length,
				injected: q('script').filter(s => s.textContent.indexOf('copyConfig') < 0).length +
					q('[onerror],[onload]').length + q('img,iframe,object,embed').length,
			};
		});
		await page.screenshot({ path: shot, fullPage: !size });
		console.log(JSON.stringify({ requests, errors, dialogs, dom }));
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}
main().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
