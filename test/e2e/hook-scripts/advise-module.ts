// A module hook: mcpx runs this file with its own runner and reads the default export's return value
// as the hook's answer.
export default function () {
  return { advise: "from module" };
}
