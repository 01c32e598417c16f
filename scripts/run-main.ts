// The end of every operator script (rebuild, restore, restored, key rotation): run `main`, exit
// with the code it answers, and print the stack of anything it threw (exit 1), without cutting off
// output still being written (process.exitCode, not process.exit).
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
