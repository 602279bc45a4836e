// `colony offices tasks list|create|show|update --office <office>`: an office's task queue.
import { clientFor } from '../../client-from-env.ts';
import { printList, printMore, printRecord } from '../../output.ts';
import type { OfficeTask } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

const taskLines = (t: OfficeTask) => [`${t.id} ${t.status}  ${t.title}`, '', t.prompt];

export const list: Handler = async (ctx) => {
  const office = String(ctx.flags.office);
  const { status, cursor } = ctx.flags;
  const client = await clientFor(ctx);
  const { tasks, nextCursor } = await client.listTasks(office, {
    ...(typeof status === 'string' ? { status } : {}),
    ...(typeof cursor === 'string' ? { cursor } : {}),
  });
  printList<OfficeTask>(
    ctx,
    tasks,
    [
      { header: 'id', cell: (t) => t.id },
      { header: 'status', cell: (t) => t.status },
      { header: 'created', cell: (t) => t.createdAt },
      { header: 'title', cell: (t) => t.title },
    ],
    `No tasks${typeof status === 'string' ? ` ${status}` : ''} in ${office}. Add one with \`colony offices tasks create --office ${office}\`.`,
  );
  printMore(ctx, nextCursor);
  return 0;
};

export const create: Handler = async (ctx) => {
  const { office, title, prompt } = ctx.flags;
  const client = await clientFor(ctx);
  const task = await client.createTask(String(office), {
    title: String(title),
    prompt: String(prompt),
  });
  printRecord(ctx, task, () => [`${task.id} ${task.status}`]);
  return 0;
};

export const show: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const task = await client.getTask(String(ctx.flags.office), ctx.args[0] as string);
  printRecord(ctx, task, () => taskLines(task));
  return 0;
};

export const update: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const task = await client.updateTask(
    String(ctx.flags.office),
    ctx.args[0] as string,
    String(ctx.flags.status),
  );
  printRecord(ctx, task, () => [`${task.id} ${task.status}`]);
  return 0;
};
