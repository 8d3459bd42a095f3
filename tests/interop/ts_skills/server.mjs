// The TypeScript SDK 2.4 serving a folder of skills over stdio (SEP-2640):
//   node server.mjs SKILLS_FOLDER
// Run from a folder whose node_modules holds @modelcontextprotocol/server 2.4.

import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

const mcp = new McpServer({ name: 'ts-skills', version: '1.0.0' });
const skills = await loadSkills(process.argv[2]);
skills.attach(mcp);
await mcp.connect(new StdioServerTransport());
