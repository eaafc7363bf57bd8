import { findWorkloadDescriptor } from '../workloads/catalog';

/** Operations of a workload that record a verdict over its other figures (its descriptor's `report.verdicts`). */
export const verdictOperationsOf = (workload: string): readonly string[] => findWorkloadDescriptor(workload)?.report.verdicts ?? [];

/** A verdict operation has an outcome and its line, never a time or a rate (the history and the report both ask). */
export const isVerdictOperation = (c: { workload: string; operation: string }): boolean => verdictOperationsOf(c.workload).includes(c.operation);
