import { describeLanguage } from "../fixtures/language-suite.js";

// A Python scheduler with decorators and nested functions. Gold: the overflow check of
// lines 34-37 (atoms: if 34, raise 35-36; gold rows 34, 35, 36).
describeLanguage({
  name: "python",
  fixture: "scheduler.py",
  path: "pool/scheduler.py",
  other: { path: "pool/worker.py", text: "class Worker:\n    load = 0\n" },
  atomCount: 35,
  significantLines: 41,
  atoms: {
    1: ["expression_statement", [1]], // module docstring
    10: ["decorated_definition", [10, 11]],
    11: ["decorated_definition", [10, 11]],
    13: ["try_statement", [13, 15]],
    15: ["try_statement", [13, 15]], // except header
    32: null, // comment
    35: ["raise_statement", [35, 36]],
    37: null, // lone parenthesis
  },
  symbols: {
    "Scheduler.assign": [
      ["pool.scheduler.Scheduler.assign", 30, 39],
      ["pool.scheduler.Scheduler.assign", 41, 43],
    ],
    "retry.decorator.wrapper": [["pool.scheduler.retry.decorator.wrapper", 10, 17]],
    "pool.scheduler.drain": [["pool.scheduler.drain", 46, 55]],
    "scheduler.Scheduler": [["pool.scheduler.Scheduler", 24, 43]],
  },
  cases: [
    {
      name: "exact hit",
      gold: [[34, 37]],
      blocks: [{ startLine: 34, endLine: 37 }],
      coverage: 1,
      precision: [2, 2],
      fileCoverage: 1,
      linePrecision: [3, 3],
    },
    {
      name: "off by one into a comment row",
      gold: [[33, 33]],
      blocks: [{ startLine: 32, endLine: 33 }],
      coverage: 1,
      precision: [1, 1],
      fileCoverage: 1,
      linePrecision: [1, 1],
    },
    {
      name: "a comment before a block's first statement snaps to that statement",
      gold: [[33, 33]],
      blocks: [{ startLine: 32, endLine: 32 }],
      coverage: 1,
      precision: [1, 1],
      fileCoverage: 1,
      linePrecision: 0,
    },
    {
      name: "header-only hit of an if reaches the if block",
      gold: [[34, 37]],
      blocks: [{ startLine: 34, endLine: 34 }],
      coverage: 1,
      precision: [1, 1],
      fileCoverage: 1,
      linePrecision: [1, 1],
    },
    {
      name: "the if header does not reach its body",
      gold: [[35, 37]],
      blocks: [{ startLine: 34, endLine: 34 }],
      coverage: 0,
      precision: [0, 1],
      fileCoverage: 1,
      linePrecision: [0, 1],
    },
    {
      name: "naming the enclosing method (decorated, both definitions)",
      gold: [[34, 37]],
      blocks: [{ symbol: "Scheduler.assign" }],
      coverage: 1,
      precision: [2, 8],
      fileCoverage: 1,
      linePrecision: [3, 11],
    },
    {
      name: "naming the whole file: no coverage, tiny precision",
      gold: [[34, 37]],
      blocks: [{}],
      coverage: 0,
      precision: [2, 35],
      fileCoverage: 1,
      linePrecision: [3, 41],
      earns: [false],
    },
    {
      name: "two blocks, one hit",
      gold: [
        [34, 37],
        [46, 55],
      ],
      blocks: [{ startLine: 34, endLine: 37 }],
      coverage: [1, 2],
      precision: [2, 2],
      fileCoverage: 1,
      linePrecision: [3, 3],
    },
    {
      name: "wrong file",
      gold: [[34, 37]],
      blocks: [{ path: "other", startLine: 1, endLine: 2 }],
      coverage: 0,
      precision: 0,
      fileCoverage: 0,
      linePrecision: 0,
    },
    {
      name: "an unknown symbol is one phantom false positive",
      gold: [[34, 37]],
      blocks: [{ startLine: 34, endLine: 37 }, { symbol: "Scheduler.release" }],
      coverage: 1,
      precision: [2, 3],
      fileCoverage: 1,
      linePrecision: [3, 3],
      warnings: ["unknown-symbol"],
    },
  ],
});
