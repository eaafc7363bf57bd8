declare module 'asl-validator' { const validator: (definition: unknown) => { isValid: boolean; errorsText(separator?: string): string }; export default validator; }
