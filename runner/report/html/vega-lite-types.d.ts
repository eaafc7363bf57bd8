// vega-lite publishes its types only through package.json "exports", which this project's
// `moduleResolution: node` does not read; point the type checker at them (types only: esbuild
// and jest resolve the package itself).
declare module 'vega-lite' {
  export * from 'vega-lite/build/index';
}
