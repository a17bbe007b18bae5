// The chat page: the AI SDK's UI message stream read by hand (what useChat does), tool parts
// shown with approve / deny buttons. Everything is rendered as text: tool arguments and results
// come from a model and are never markup.

/** Applies one UI message stream chunk to the assistant message being built. */
export function applyChunk(message, chunk) {
  const toolPart = (id) => message.parts.find((part) => part.toolCallId === id);
  switch (chunk.type) {
    case 'text-start':
      message.parts.push({ type: 'text', id: chunk.id, text: '' });
      break;
    case 'text-delta': {
      const part = message.parts.find((p) => p.type === 'text' && p.id === chunk.id);
      if (part) part.text += chunk.delta;
      break;
    }
    case 'tool-input-available':
      if (!toolPart(chunk.toolCallId))
        message.parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId,
          state: 'input-available',
          input: chunk.input,
        });
      break;
    case 'tool-approval-request': {
      const part = toolPart(chunk.toolCallId);
      if (part)
        Object.assign(part, { state: 'approval-requested', approval: { id: chunk.approvalId } });
      break;
    }
    case 'tool-output-available': {
      const part = toolPart(chunk.toolCallId);
      if (part) Object.assign(part, { state: 'output-available', output: chunk.output });
      break;
    }
    case 'tool-output-error': {
      const part = toolPart(chunk.toolCallId);
      if (part) Object.assign(part, { state: 'output-error', errorText: chunk.errorText });
      break;
    }
    case 'tool-output-denied': {
      const part = toolPart(chunk.toolCallId);
      if (part) part.state = 'output-denied';
      break;
    }
    case 'start':
      if (chunk.messageId) message.id = chunk.messageId;
      break;
  }
  return message;
}

/** Reads a server-sent UI message stream, calling `onChunk` with each chunk. */
export async function readStream(response, onChunk) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        onChunk(JSON.parse(line.slice(6)));
      }
      end = buffer.indexOf('\n\n');
    }
  }
}

/** Sends the conversation; appends (or continues) the assistant's answer. */
export async function send(chat, render = () => {}) {
  const response = await fetch(chat.api, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...chat.headers },
    body: JSON.stringify({ id: chat.id, messages: chat.messages }),
  });
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  const last = chat.messages.at(-1);
  const message =
    last?.role === 'assistant' ? last : { id: `m${Date.now()}`, role: 'assistant', parts: [] };
  if (message !== last) chat.messages.push(message);
  await readStream(response, (chunk) => {
    applyChunk(message, chunk);
    render();
  });
}

/** Answers one approval request; once none is left open, the conversation goes on. */
export async function decide(chat, approvalId, approved, render = () => {}) {
  const parts = chat.messages.flatMap((message) => message.parts);
  const part = parts.find((p) => p.approval?.id === approvalId);
  if (part?.state !== 'approval-requested') return;
  part.state = 'approval-responded';
  part.approval = {
    id: approvalId,
    approved,
    ...(approved ? {} : { reason: 'The user said no.' }),
  };
  render();
  if (!parts.some((p) => p.state === 'approval-requested')) await send(chat, render);
}

function renderAll(chat, root) {
  root.replaceChildren();
  for (const message of chat.messages) {
    for (const part of message.parts) {
      const line = document.createElement('div');
      line.className = `message ${message.role}`;
      if (part.type === 'text') {
        line.textContent = `${message.role === 'user' ? 'you' : 'assistant'}: ${part.text}`;
      } else if (part.type.startsWith('tool-')) {
        line.className += ' tool';
        const title = document.createElement('strong');
        title.textContent = `${part.type.slice(5)} (${part.state})`;
        const input = document.createElement('pre');
        input.textContent = JSON.stringify(part.input, null, 2);
        line.append(title, input);
        if (part.state === 'approval-requested') {
          const buttons = document.createElement('div');
          buttons.className = 'approval';
          for (const [label, approved] of [
            ['Approve', true],
            ['Deny', false],
          ]) {
            const button = document.createElement('button');
            button.textContent = label;
            button.addEventListener('click', () =>
              decide(chat, part.approval.id, approved, () => renderAll(chat, root)),
            );
            buttons.append(button);
          }
          line.append(buttons);
        }
        if (part.output !== undefined) {
          const output = document.createElement('pre');
          output.textContent = JSON.stringify(part.output, null, 2);
          line.append(output);
        }
      }
      root.append(line);
    }
  }
}

if (typeof document !== 'undefined') {
  const chat = { api: '/api/chat', headers: {}, id: `chat-${Date.now()}`, messages: [] };
  const root = document.getElementById('messages');
  const input = document.getElementById('input');
  document.getElementById('form').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    chat.messages.push({ id: `u${Date.now()}`, role: 'user', parts: [{ type: 'text', text }] });
    renderAll(chat, root);
    send(chat, () => renderAll(chat, root)).catch((error) => {
      root.append(Object.assign(document.createElement('p'), { textContent: String(error) }));
    });
  });
}
