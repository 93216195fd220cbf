// Starts `asrender lsp` for .as files and passes the asrender.* settings to it. The "Show prompt"
// lens runs the server's asrender.showPrompt command; its answer (every call of that generate, as
// asrender prints it) opens beside the program.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("asrender");
  const [command, ...args] = settings.get("command");
  const options = { format: settings.get("format"), provider: settings.get("provider"), timeout: settings.get("timeout") };
  client = new LanguageClient(
    "asrender",
    "AgentScript (asrender lsp)",
    { command, args },
    {
      documentSelector: [{ scheme: "file", language: "agentscript" }],
      initializationOptions: options,
      synchronize: { configurationSection: "asrender" },
      middleware: {
        executeCommand: async (name, commandArgs, next) => {
          const text = await next(name, commandArgs);
          if (name === "asrender.showPrompt" && typeof text === "string") {
            const document = await vscode.workspace.openTextDocument({ content: text, language: "plaintext" });
            await vscode.window.showTextDocument(document, vscode.ViewColumn.Beside);
          }
          return text;
        },
      },
    },
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
