import { describeLanguage } from "../fixtures/language-suite.js";

// A Kudu-like replica in C++ with namespaces, a template and out-of-line methods.
// Gold: the term check of lines 26-31 (atoms: if 26 + else 28, 27, return 30).
describeLanguage({
  name: "cpp",
  fixture: "replica.cc",
  path: "src/kudu/consensus/replica.cc",
  other: {
    path: "src/kudu/consensus/log.cc",
    text: "namespace kudu {\nvoid Log::Sync() {\n  fsync(fd_);\n}\n}  // namespace kudu\n",
  },
  atomCount: 39,
  significantLines: 41,
  atoms: {
    3: null, // blank
    8: ["access_specifier", [8]],
    10: ["return_statement", [10]], // inline one-line method
    17: ["template_declaration", [17, 18]],
    26: ["if_statement", [26, 28]],
    28: ["if_statement", [26, 28]], // } else {
    29: null, // comment
    33: ["expression_statement", [33]], // lambda body
    54: ["compound_statement", [54]],
  },
  symbols: {
    "Replica::Apply": [["kudu::consensus::Replica::Apply", 24, 36]],
    "consensus::Clamp": [["kudu::consensus::Clamp", 17, 20]],
    "Replica::Vote": [["kudu::Replica::Vote", 38, 47]],
    "kudu::consensus::Replica::term": [["kudu::consensus::Replica::term", 10, 10]],
    "Replica::Step(const Message&)": [["kudu::Replica::Step", 49, 62]],
  },
  cases: [
    {
      name: "exact hit",
      gold: [[26, 31]],
      blocks: [{ startLine: 26, endLine: 31 }],
      coverage: 1,
      precision: [3, 3],
      fileCoverage: 1,
      linePrecision: [4, 4],
    },
    {
      name: "off by one into a comment row",
      gold: [[30, 30]],
      blocks: [{ startLine: 29, endLine: 30 }],
      coverage: 1,
      precision: [1, 1],
      fileCoverage: 1,
      linePrecision: [1, 1],
    },
    {
      name: "a comment-only range snaps to the following atom of the else block",
      gold: [[30, 30]],
      blocks: [{ startLine: 29, endLine: 29 }],
      coverage: 1,
      precision: [1, 1],
      fileCoverage: 1,
      linePrecision: 0,
    },
    {
      name: "header-only hit of an if reaches the if block",
      gold: [[26, 31]],
      blocks: [{ startLine: 26, endLine: 26 }],
      coverage: 1,
      precision: [1, 1],
      fileCoverage: 1,
      linePrecision: [1, 1],
    },
    {
      name: "the if header does not reach its body",
      gold: [[27, 27]],
      blocks: [{ startLine: 26, endLine: 26 }],
      coverage: 0,
      precision: [0, 1],
      fileCoverage: 1,
      linePrecision: [0, 1],
    },
    {
      name: "naming the enclosing out-of-line method",
      gold: [[26, 31]],
      blocks: [{ symbol: "Replica::Apply" }],
      coverage: 1,
      precision: [3, 8],
      fileCoverage: 1,
      linePrecision: [4, 9],
    },
    {
      name: "naming the whole file: no coverage, tiny precision",
      gold: [[26, 31]],
      blocks: [{}],
      coverage: 0,
      precision: [3, 39],
      fileCoverage: 1,
      linePrecision: [4, 41],
      earns: [false],
    },
    {
      name: "two blocks, one hit",
      gold: [
        [26, 31],
        [38, 47],
      ],
      blocks: [{ startLine: 26, endLine: 31 }],
      coverage: [1, 2],
      precision: [3, 3],
      fileCoverage: 1,
      linePrecision: [4, 4],
    },
    {
      name: "wrong file",
      gold: [[26, 31]],
      blocks: [{ path: "other", startLine: 2, endLine: 4 }],
      coverage: 0,
      precision: 0,
      fileCoverage: 0,
      linePrecision: 0,
    },
    {
      name: "an unknown symbol is one phantom false positive",
      gold: [[26, 31]],
      blocks: [{ startLine: 26, endLine: 31 }, { symbol: "Replica::Commit" }],
      coverage: 1,
      precision: [3, 4],
      fileCoverage: 1,
      linePrecision: [4, 4],
      warnings: ["unknown-symbol"],
    },
  ],
});
