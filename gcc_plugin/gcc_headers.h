// gcc_headers.h — GCC 12's plugin headers, in the order they need each other. Every file of
// the plugin includes this first (gcc-plugin.h must come before any other GCC header).
#ifndef INSTR_GCC_HEADERS_H
#define INSTR_GCC_HEADERS_H

#include "gcc-plugin.h"
#include "plugin-version.h"

#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-walk.h"
#include "gimplify.h"
#include "stringpool.h"
#include "stor-layout.h"
#include "cgraph.h"
#include "ssa.h"  // unlink_stmt_vdef, release_defs (the late pass works on SSA form)
#include "attribs.h"
#include "diagnostic-core.h"
#include "toplev.h"
#include "ggc.h"
#include "intl.h"
#include "langhooks.h"  // decl_printable_name: Score-P's spelling of a function

#endif
