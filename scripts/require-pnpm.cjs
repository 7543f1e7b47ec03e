// npm cannot install a pnpm workspace (catalog: versions); say so plainly instead of failing obscurely.
const agent = process.env.npm_config_user_agent || '';
if (!agent.startsWith('pnpm')) {
  console.error('This is a pnpm workspace: run `npm start` or `npm test` (they install through `npx pnpm`), or `npx pnpm install`.');
  process.exit(1);
}
