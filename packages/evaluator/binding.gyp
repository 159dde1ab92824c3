{
  "variables": {
    "tree_sitter_version%": "<!(node -p \"require('tree-sitter-runtime/package.json').version\")",
    "tree_sitter_lib%": "<!(node -p \"require('path').join(require('path').dirname(require.resolve('tree-sitter-runtime/package.json')), 'vendor/tree-sitter/lib')\")"
  },
  "targets": [
    {
      "target_name": "distdebug_collect",
      "sources": ["native/collect.c", "native/tree-sitter-runtime.c"],
      "include_dirs": ["<(tree_sitter_lib)/include", "<(tree_sitter_lib)/src"],
      "defines": ["_POSIX_C_SOURCE=200112L", "_DEFAULT_SOURCE", "NAPI_VERSION=8", "TREE_SITTER_PACKAGE_VERSION=\"<(tree_sitter_version)\""],
      "cflags_c": ["-std=c11", "-O2", "-fvisibility=hidden"],
      "cflags!": ["-fno-exceptions"]
    }
  ]
}
