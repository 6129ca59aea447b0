// A value built the first time it is asked for. For module-level tables that most runs never use
// (valibot schemas of config shapes, of hooks): a module is loaded by every run that imports it, so
// building them at load would be paid by every run's start, used or not.

export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
