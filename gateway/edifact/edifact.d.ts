// The parts of the `edifact` package (node-edifact) the gateway uses; it ships no types.
declare module 'edifact' {
  import { EventEmitter } from 'node:events';
  export interface SegmentDefinition {
    requires: number;
    elements: string[];
  }
  export interface ElementDefinition {
    requires: number;
    components: string[];
  }
  export class Validator {
    define(definitions: Record<string, SegmentDefinition | ElementDefinition>): void;
  }
  export class Parser extends EventEmitter {
    constructor(validator?: Validator);
    onopensegment(segment: string): void;
    onelement(): void;
    oncomponent(value: string): void;
    onclosesegment(): void;
    encoding(level: string): void;
    write(chunk: string): void;
    end(): void;
  }
  export interface SegmentTableEntry {
    content: string | SegmentTableEntry[];
    mandatory: boolean;
    repetition: number;
  }
  export class Tracker extends EventEmitter {
    constructor(table: SegmentTableEntry[]);
    accept(segment: string): boolean;
  }
}
