// Types of setup.mjs (plain Node, run before any build: see its header).
import type { Component, InstallRegistry } from '../core/install';

export const LINE_COLUMNS: number;
export const USAGE: string;
export function setupLine(name: string, version: string | undefined, status: string): string;
export function failureLines(name: string, version: string | undefined, message: string, logFile: string): string[];
export function shownVersion(c: Component): string;
export function wanted(spec: InstallRegistry, names: string[], all: boolean): string[];
export function crateHash(crateDir: string): string;
export const QUICK_OPTIONAL_S: number;
export function estimateOf(spec: InstallRegistry, method: string): number;
export function runNeeds(spec: InstallRegistry, methods: (string | { name: string; optional?: boolean })[], workloads: string[]): { required: string[]; optional: string[] };
export function missingComponents(root: string, names: string[]): string[];
export function addMethodLine(root: string, method: string): string | null;
export function progressLine(running: { name: string; t0: number; estimateSeconds: number }[], now?: number): string;
export function setup(root: string, args: string[], say?: (line: string) => void): Promise<number>;
