// The TypeScript SDK 2.4's skills client (SEP-2640) against a server over stdio:
//   node client.mjs legacy|auto SKILL_URI FILE -- COMMAND [ARGS...]
// Lists the server's skills, gets SKILL_URI, reads its SKILL.md and FILE through
// SkillsClient.read (which checks each file's size and digest against the entry,
// and SKILL.md's frontmatter), then prints one JSON object on stdout.
// Run from a folder whose node_modules holds @modelcontextprotocol/client 2.4.

import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SKILLS_EXTENSION_ID, SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [mode, skillUri, file, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || command === undefined) {
    console.error('usage: node client.mjs legacy|auto SKILL_URI FILE -- COMMAND [ARGS...]');
    process.exit(2);
}

const client = new Client(
    { name: 'ts-skills-client', version: '1.0.0' },
    {
        capabilities: { extensions: { [SKILLS_EXTENSION_ID]: {} } },
        versionNegotiation: { mode }
    }
);
// The server inherits this environment (PYTHONPATH picks the code under test).
await client.connect(new StdioClientTransport({ command, args, env: process.env }));

const digest = bytes => 'sha256:' + createHash('sha256').update(bytes).digest('hex');
const shown = read => ({
    uri: read.uri,
    verified: read.verified,
    size: read.bytes.byteLength,
    digest: digest(read.bytes),
    ...(read.frontmatter !== undefined && { frontmatter: read.frontmatter })
});

const skills = new SkillsClient(client);
const listing = await skills.list();
const { skill } = await skills.get(skillUri);
const manifest = await skills.read(skill);
const other = await skills.read(skill, file);

const report = {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    supported: skills.supported,
    directoryRead: skills.directoryRead,
    ttlMs: listing.ttlMs,
    cacheScope: listing.cacheScope,
    skills: listing.skills.map(entry => ({
        uri: entry.uri,
        name: entry.frontmatter.name,
        resources: Array.isArray(entry.resources)
            ? entry.resources.map(resource =>
                  typeof resource === 'string' ? { uri: resource } : { uri: resource.uri, digest: resource.digest, size: resource.size }
              )
            : entry.resources
    })),
    got: skill.uri,
    manifest: { ...shown(manifest), body: manifest.body },
    file: shown(other)
};
process.stdout.write(JSON.stringify(report) + '\n');
await client.close();
