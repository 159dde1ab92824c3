/*
 * One native pass over a tree that node-tree-sitter parsed: the nodes the evaluator looks for
 * (containers, comments, definitions, the package clause, wrappers, ERROR nodes) in pre-order,
 * and the atom candidates among each container's children (never an ERROR node). See
 * src/internal/native-collect.ts.
 *
 * The tree is reached through its root node as node-tree-sitter marshals it (six 32-bit words:
 * the node id, then the four context words). A root node's id is the address of its TSTree
 * (`ts_tree_root_node` makes it `&tree->root`, the struct's first member), so the tree is read
 * with this addon's own copy of the same tree-sitter runtime sources (compiled from the
 * `tree-sitter` package's vendor folder, so the layouts match). The tree is only read.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree_sitter/api.h"
/* Internal headers of the same runtime sources: the walk reads subtrees directly. */
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

/* Roles, as in src/internal/walk-tree.ts. */
enum { CONTAINER = 1, COMMENT = 2, DEFINITION = 3 };

/* Words per found node besides its type id and six node words: end row, end column (UTF-16 code
 * units), end index (UTF-16 code units), first atom and atom count (containers; 0 otherwise);
 * for definitions, the start and end index of their `name` field child and of the end of their
 * declarator chain (see `declarator_end`), NO_NAME when they have none. */
#define EXTRA_WORDS 9
#define NO_NAME 0xFFFFFFFFu
/* Words per atom: type id, start row, start column, end row, end column (UTF-16 code units). */
#define ATOM_WORDS 5

typedef struct {
  uint32_t *data;
  size_t length;
  size_t capacity;
} Words;

static int words_reserve(Words *words, size_t more) {
  if (words->length + more <= words->capacity) return 1;
  size_t capacity = words->capacity ? words->capacity * 2 : 4096;
  while (capacity < words->length + more) capacity *= 2;
  uint32_t *data = realloc(words->data, capacity * sizeof(uint32_t));
  if (!data) return 0;
  words->data = data;
  words->capacity = capacity;
  return 1;
}

#define CHECK(call)                                                             \
  do {                                                                          \
    if ((call) != napi_ok) return NULL;                                         \
  } while (0)

static napi_value fail(napi_env env, const char *message) {
  napi_throw_error(env, "DISTDEBUG_NATIVE_COLLECT", message);
  return NULL;
}

/* Reads exactly `count` arguments into argv; throws (naming `function`) when fewer are given. */
static int arguments(napi_env env, napi_callback_info info, size_t count, napi_value *argv,
                     const char *function) {
  size_t given = count;
  if (napi_get_cb_info(env, info, &given, argv, NULL, NULL) != napi_ok) return 0;
  if (given >= count) return 1;
  char message[96];
  snprintf(message, sizeof message, "%s: expected %zu arguments", function, count);
  fail(env, message);
  return 0;
}

static int typed_array(napi_env env, napi_value value, napi_typedarray_type want, void **data,
                       size_t *length) {
  bool is;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is) return 0;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset) != napi_ok)
    return 0;
  return type == want;
}

static napi_value to_uint32_array(napi_env env, const Words *words) {
  void *data;
  napi_value buffer, array;
  CHECK(napi_create_arraybuffer(env, words->length * sizeof(uint32_t), &data, &buffer));
  if (words->length) memcpy(data, words->data, words->length * sizeof(uint32_t));
  CHECK(napi_create_typedarray(env, napi_uint32_array, words->length, buffer, 0, &array));
  return array;
}

/* A subtree whose children the walk goes through. */
typedef struct {
  const Subtree *parent;
  Length position;
  uint32_t child_index;
  uint32_t structural_child_index;
  const TSSymbol *alias_sequence;
} Frame;

typedef struct {
  Frame *data;
  size_t length;
  size_t capacity;
} Frames;

static int frames_push_at(Frames *frames, const Subtree *parent, Length position,
                          const TSLanguage *language) {
  if (frames->length == frames->capacity) {
    size_t capacity = frames->capacity ? frames->capacity * 2 : 64;
    Frame *data = realloc(frames->data, capacity * sizeof(Frame));
    if (!data) return 0;
    frames->data = data;
    frames->capacity = capacity;
  }
  frames->data[frames->length++] = (Frame){
      .parent = parent,
      .position = position,
      .child_index = 0,
      .structural_child_index = 0,
      .alias_sequence = ts_language_alias_sequence(language, parent->ptr->production_id),
  };
  return 1;
}

/* Pushes the frame of a visible node's subtree (its position is the node's start). */
static int frames_push(Frames *frames, const Subtree *parent, TSNode node,
                       const TSLanguage *language) {
  Length position = {node.context[0], {node.context[1], node.context[2]}};
  return frames_push_at(frames, parent, position, language);
}

/* The tree whose root node's words `value` holds (a Uint32Array of 6), or NULL (thrown). */
static const TSTree *tree_of(napi_env env, napi_value value) {
  uint32_t *words;
  size_t length;
  if (!typed_array(env, value, napi_uint32_array, (void **)&words, &length) || length != 6) {
    fail(env, "expected a root node's six words");
    return NULL;
  }
  uint64_t id = (uint64_t)words[0] | ((uint64_t)words[1] << 32);
  const TSTree *tree = (const TSTree *)(uintptr_t)id;
  if (!tree) {
    fail(env, "no tree");
    return NULL;
  }
  TSNode root = ts_tree_root_node(tree);
  if (root.id != (const void *)tree || root.context[0] != words[2] ||
      root.context[1] != words[3] || root.context[2] != words[4] || root.context[3] != words[5]) {
    fail(env, "the words are not a tree's root node");
    return NULL;
  }
  return tree;
}

/* The language of the tree whose root node's words `value` holds, or NULL (thrown). */
static const TSLanguage *language_of(napi_env env, napi_value value) {
  const TSTree *tree = tree_of(env, value);
  return tree ? ts_tree_language(tree) : NULL;
}

/*
 * Where a C or C++ declarator chain names its function: from the `declarator` field child,
 * follow `declarator` fields until a node whose type is a name (`stop`), as `declaratorName` in
 * src/internal/symbols.ts does (at most 12 nodes). A null node when the chain has no name.
 */
static TSNode declarator_end(TSNode node, TSFieldId declarator, const uint8_t *stop,
                             size_t stop_length) {
  TSNode current = ts_node_child_by_field_id(node, declarator);
  for (int depth = 0; depth < 12 && !ts_node_is_null(current); depth++) {
    TSSymbol symbol = ts_node_symbol(current);
    if (symbol < stop_length && stop[symbol]) return current;
    current = ts_node_child_by_field_id(current, declarator);
  }
  return (TSNode){{0, 0, 0, 0}, NULL, NULL};
}

/*
 * collect(root, role, fieldMode, fieldSet, fieldStride, nameField, declaratorField,
 * declaratorStop) -> [types, words, extra, atoms]: the found nodes (type ids, six words each,
 * EXTRA_WORDS each) in pre-order, and the atoms of the containers among them (ATOM_WORDS each).
 *   root: Uint32Array(6), the root node's words.
 *   role: Uint8Array, role by type id.
 *   fieldMode: Uint8Array by type id: 0 every child, 1 only children in the listed fields,
 *     2 every child but those in the listed fields.
 *   fieldSet: Uint8Array, fieldSet[typeId * fieldStride + fieldId] = 1 for a listed field.
 *   nameField: the id of the field `name` (0: none).
 *   declaratorField: the id of the field `declarator` (0: none).
 *   declaratorStop: Uint8Array by type id: 1 for the types that end a declarator chain.
 */
static napi_value collect(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  if (!arguments(env, info, 8, argv, "collect")) return NULL;
  uint8_t *role, *field_mode, *field_set, *stop;
  size_t role_length, mode_length, set_length, stop_length;
  uint32_t field_stride, name_field, declarator_field;
  if (!typed_array(env, argv[1], napi_uint8_array, (void **)&role, &role_length) ||
      !typed_array(env, argv[2], napi_uint8_array, (void **)&field_mode, &mode_length) ||
      !typed_array(env, argv[3], napi_uint8_array, (void **)&field_set, &set_length) ||
      napi_get_value_uint32(env, argv[4], &field_stride) != napi_ok ||
      napi_get_value_uint32(env, argv[5], &name_field) != napi_ok ||
      napi_get_value_uint32(env, argv[6], &declarator_field) != napi_ok ||
      !typed_array(env, argv[7], napi_uint8_array, (void **)&stop, &stop_length))
    return fail(env, "collect: bad arguments");

  const TSTree *tree = tree_of(env, argv[0]);
  if (!tree) return NULL;
  TSNode root = ts_tree_root_node(tree);

  Words types = {0}, words = {0}, extra = {0}, atoms = {0};
  int ok = 1;
  TSTreeCursor children = ts_tree_cursor_new(root);
  const TSLanguage *language = ts_tree_language(tree);
  /*
   * Pre-order over the visible nodes, as a TSTreeCursor goes, but reading the subtrees
   * directly (no cursor bookkeeping per step): a frame per subtree with children, its position
   * advanced child by child, aliases from its production's alias sequence.
   */
  Frames frames = {0};
  TSNode node = root;
  const Subtree *subtree = &tree->root;
  for (;;) {
    TSSymbol symbol = ts_node_symbol(node);
    uint8_t node_role = symbol < role_length ? role[symbol] : 0;
    /* ERROR nodes are found too (their ranges are scored as lines); their role stays 0. */
    if (node_role || symbol == ts_builtin_sym_error) {
      if (!words_reserve(&types, 1) || !words_reserve(&words, 6) ||
          !words_reserve(&extra, EXTRA_WORDS)) {
        ok = 0;
        break;
      }
      types.data[types.length++] = symbol;
      uint64_t node_id = (uint64_t)(uintptr_t)node.id;
      uint32_t *out = words.data + words.length;
      words.length += 6;
      out[0] = (uint32_t)node_id;
      out[1] = (uint32_t)(node_id >> 32);
      out[2] = node.context[0];
      out[3] = node.context[1];
      out[4] = node.context[2];
      out[5] = node.context[3];
      TSPoint end = ts_node_end_point(node);
      size_t at = extra.length;
      extra.length += EXTRA_WORDS;
      extra.data[at] = end.row;
      extra.data[at + 1] = end.column >> 1;
      extra.data[at + 2] = ts_node_end_byte(node) >> 1;
      extra.data[at + 3] = (uint32_t)(atoms.length / ATOM_WORDS);
      extra.data[at + 4] = 0;
      extra.data[at + 5] = NO_NAME;
      extra.data[at + 6] = NO_NAME;
      extra.data[at + 7] = NO_NAME;
      extra.data[at + 8] = NO_NAME;
      if (node_role == DEFINITION) {
        TSNode name = name_field ? ts_node_child_by_field_id(node, (TSFieldId)name_field)
                                 : (TSNode){{0, 0, 0, 0}, NULL, NULL};
        if (!ts_node_is_null(name)) {
          extra.data[at + 5] = ts_node_start_byte(name) >> 1;
          extra.data[at + 6] = ts_node_end_byte(name) >> 1;
        }
        TSNode chain_end = declarator_field ? declarator_end(node, (TSFieldId)declarator_field,
                                                             stop, stop_length)
                                            : (TSNode){{0, 0, 0, 0}, NULL, NULL};
        if (!ts_node_is_null(chain_end)) {
          extra.data[at + 7] = ts_node_start_byte(chain_end) >> 1;
          extra.data[at + 8] = ts_node_end_byte(chain_end) >> 1;
        }
      }
      if (node_role == CONTAINER) {
        size_t first = atoms.length;
        uint8_t mode = symbol < mode_length ? field_mode[symbol] : 0;
        ts_tree_cursor_reset(&children, node);
        if (ts_tree_cursor_goto_first_child(&children)) do {
          TSNode child = ts_tree_cursor_current_node(&children);
          if (!ts_node_is_named(child)) continue;
          TSSymbol child_symbol = ts_node_symbol(child);
          if (child_symbol == ts_builtin_sym_error) continue;
          if (child_symbol < role_length && role[child_symbol] == COMMENT) continue;
          if (mode) {
            TSFieldId field = ts_tree_cursor_current_field_id(&children);
            size_t slot = (size_t)symbol * field_stride + field;
            int in_field =
                field != 0 && field < field_stride && slot < set_length && field_set[slot];
            if (mode == 1 ? !in_field : in_field) continue;
          }
          if (ts_node_start_byte(child) == ts_node_end_byte(child)) continue;
          if (!words_reserve(&atoms, ATOM_WORDS)) {
            ok = 0;
            break;
          }
          TSPoint start = ts_node_start_point(child), stop = ts_node_end_point(child);
          uint32_t *atom = atoms.data + atoms.length;
          atoms.length += ATOM_WORDS;
          atom[0] = child_symbol;
          atom[1] = start.row;
          atom[2] = start.column >> 1;
          atom[3] = stop.row;
          atom[4] = stop.column >> 1;
        } while (ts_tree_cursor_goto_next_sibling(&children));
        if (!ok) break;
        extra.data[at + 4] = (uint32_t)((atoms.length - first) / ATOM_WORDS);
      }
    }
    if (ts_subtree_child_count(*subtree) > 0) {
      if (!frames_push(&frames, subtree, node, language)) {
        ok = 0;
        break;
      }
    }
    /* The next visible node: the next child of the innermost frame that has one left. */
    int next = 0;
    while (frames.length > 0 && !next) {
      Frame *frame = &frames.data[frames.length - 1];
      if (frame->child_index == ts_subtree_child_count(*frame->parent)) {
        frames.length--;
        continue;
      }
      const Subtree *child = &ts_subtree_children(*frame->parent)[frame->child_index];
      if (frame->child_index > 0)
        frame->position = length_add(frame->position, ts_subtree_padding(*child));
      Length position = frame->position;
      bool visible = ts_subtree_visible(*child);
      TSSymbol alias = 0;
      if (!ts_subtree_extra(*child)) {
        if (frame->alias_sequence) {
          alias = frame->alias_sequence[frame->structural_child_index];
          if (alias) visible = true;
        }
        frame->structural_child_index++;
      }
      frame->position = length_add(frame->position, ts_subtree_size(*child));
      frame->child_index++;
      if (visible) {
        node = ts_node_new(tree, child, position, alias);
        subtree = child;
        next = 1;
      } else if (ts_subtree_child_count(*child) > 0) {
        /* A hidden node: its children are its parent's, in place. */
        if (!frames_push_at(&frames, child, position, language)) {
          ok = 0;
          break;
        }
      }
    }
    if (!ok || !next) break;
  }
  free(frames.data);
  ts_tree_cursor_delete(&children);
  napi_value result = NULL;
  if (ok && napi_create_array_with_length(env, 4, &result) == napi_ok) {
    Words *parts[4] = {&types, &words, &extra, &atoms};
    for (uint32_t part = 0; part < 4 && result; part++) {
      napi_value array = to_uint32_array(env, parts[part]);
      if (!array || napi_set_element(env, result, part, array) != napi_ok) result = NULL;
    }
  }
  free(types.data);
  free(words.data);
  free(extra.data);
  free(atoms.data);
  if (!ok) return fail(env, "collect: out of memory");
  return result;
}

/*
 * languageFacts(root, fieldNames) -> [fieldIds, symbolNames]: the id of each field name in the
 * tree's language (0 for a name it does not have; a Uint32Array), and the name of every symbol
 * by id.
 */
static napi_value language_facts(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!arguments(env, info, 2, argv, "languageFacts")) return NULL;
  const TSLanguage *language = language_of(env, argv[0]);
  if (!language) return NULL;
  uint32_t count;
  bool is_array;
  if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, argv[1], &count) != napi_ok)
    return fail(env, "languageFacts: expected an array of field names");
  Words ids = {0};
  if (!words_reserve(&ids, count + 1)) return fail(env, "languageFacts: out of memory");
  for (uint32_t index = 0; index < count; index++) {
    napi_value name;
    char buffer[256];
    size_t length = 0;
    if (napi_get_element(env, argv[1], index, &name) != napi_ok ||
        napi_get_value_string_utf8(env, name, buffer, sizeof buffer, &length) != napi_ok) {
      free(ids.data);
      return fail(env, "languageFacts: a field name is not a string");
    }
    ids.data[ids.length++] = ts_language_field_id_for_name(language, buffer, (uint32_t)length);
  }
  napi_value field_ids = to_uint32_array(env, &ids);
  free(ids.data);
  if (!field_ids) return NULL;
  uint32_t symbols = ts_language_symbol_count(language);
  napi_value names, result;
  CHECK(napi_create_array_with_length(env, symbols, &names));
  for (uint32_t symbol = 0; symbol < symbols; symbol++) {
    const char *name = ts_language_symbol_name(language, (TSSymbol)symbol);
    napi_value value;
    CHECK(napi_create_string_utf8(env, name ? name : "", NAPI_AUTO_LENGTH, &value));
    CHECK(napi_set_element(env, names, symbol, value));
  }
  CHECK(napi_create_array_with_length(env, 2, &result));
  CHECK(napi_set_element(env, result, 0, field_ids));
  CHECK(napi_set_element(env, result, 1, names));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value function, version;
  CHECK(napi_create_function(env, "collect", NAPI_AUTO_LENGTH, collect, NULL, &function));
  CHECK(napi_set_named_property(env, exports, "collect", function));
  CHECK(napi_create_function(env, "languageFacts", NAPI_AUTO_LENGTH, language_facts, NULL,
                             &function));
  CHECK(napi_set_named_property(env, exports, "languageFacts", function));
  CHECK(napi_create_string_utf8(env, TREE_SITTER_PACKAGE_VERSION, NAPI_AUTO_LENGTH, &version));
  CHECK(napi_set_named_property(env, exports, "treeSitterVersion", version));
  return exports;
}

NAPI_MODULE_INIT() { return init(env, exports); }
