// validate.js - validates a JSON or JSONL file against one of our JSON Schemas
// with ajv (draft 2020-12). Usage: node validate.js SCHEMA FILE [--jsonl]
// Exit 0 when valid; otherwise prints the first errors and exits 1.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv2020 = require(path.join(__dirname, 'node_modules/ajv/dist/2020')).default;
const addFormats = require(path.join(__dirname, 'node_modules/ajv-formats'));
const [schemaPath, filePath, mode] = process.argv.slice(2);
if (!schemaPath || !filePath) { console.error('usage: validate.js SCHEMA FILE [--jsonl]'); process.exit(2); }
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')));
const text = fs.readFileSync(filePath, 'utf8');
const docs = mode === '--jsonl' ? text.split('\n').filter(l => l.length > 0) : [text];
if (mode === '--jsonl' && docs.length === 0) { console.error(`${filePath}: no lines to validate`); process.exit(1); }
let bad = 0;
docs.forEach((d, i) => {
	let v;
	try { v = JSON.parse(d); } catch (e) { console.error(`${filePath}:${i + 1}: not JSON: ${e.message}`); bad++; return; }
	if (!validate(v)) {
		if (bad < 5) console.error(`${filePath}:${i + 1}: ${ajv.errorsText(validate.errors)}`);
		bad++;
	}
});
if (bad) { console.error(`${bad} of ${docs.length} documents invalid`); process.exit(1); }
console.log(`${docs.length} documents valid against ${path.basename(schemaPath)}`);
