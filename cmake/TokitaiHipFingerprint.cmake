# What a kernel's compile reads from the project, found from its #include lines, and the
# SHA-256 source fingerprint over it. Included by TokitaiHipGenerate.cmake; on its own by
# tests/cmake/source_fingerprint.cmake (cmake -P).
include_guard(GLOBAL)
cmake_policy(VERSION 3.25) # this file's own scope (include() pushes one), also under cmake -P

# _tkh_include_closures(<prefix> BASE_DIR b INCLUDE_DIRS d... [SOURCES name...]
#                       [FINGERPRINTS name...])
# For each name (a path relative to BASE_DIR), its include closure: the file and every
# file its #include lines name, recursively, each once, in the order of a depth-first
# walk that takes a file's includes in the order of its lines.
# A name is looked up as the compiler does: "name" beside the including file, then in
# INCLUDE_DIRS in order (the compile rule's -I); <name> in INCLUDE_DIRS only. A <name>
# found in none of them is the toolchain's (<hip/hip_runtime.h>, <stdint.h>) and is left
# to the compiler fingerprint. A "name" found nowhere stops configure: every quoted
# include of the runtime headers and of the generated sources names one of ours, so it is
# a missing or misspelt file, not a toolchain header. Lines under #if count whatever the
# condition (an over-approximation: tokitai_hip/codegen/reference_simd.h, which op_math.h
# includes for the host's checks only, is in every kernel's closure); includes through
# macros (#include NAME) are not followed, and neither the runtime headers nor the
# generated sources use them.
# Each file's label is its path relative to its root: the first of INCLUDE_DIRS, else
# BASE_DIR, that holds it. A file outside them all stops configure: the fingerprint must
# not name an absolute path (two build folders give the same fingerprints).
# Each file is read and scanned once per call, and its closure made once from those of
# its includes, however many closures hold it. Sets in the caller, for each name:
#   <prefix>_FILES_<name>   the closure, absolute paths
#   <prefix>_LABELS_<name>  for FINGERPRINTS: the same files' labels
#   <prefix>_SHA256_<name>  for FINGERPRINTS: "sha256:<hex>", SHA-256 over every file of
#                           the closure in order, each as its label, a newline, its length
#                           in bytes, a newline and its bytes (a rename, or a line moved
#                           from one file to the next, changes it too)
function(_tkh_include_closures prefix)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "BASE_DIR" "INCLUDE_DIRS;SOURCES;FINGERPRINTS")
  set(roots "")
  foreach(d IN LISTS arg_INCLUDE_DIRS arg_BASE_DIR)
    cmake_path(ABSOLUTE_PATH d NORMALIZE)
    if(NOT d MATCHES "/$")
      string(APPEND d "/") # a prefix of the paths of what it holds
    endif()
    list(APPEND roots "${d}")
  endforeach()
  set(include_dirs "${roots}")
  list(POP_BACK include_dirs)
  set(names ${arg_SOURCES} ${arg_FINGERPRINTS})
  set(starts "")
  foreach(name IN LISTS names)
    cmake_path(ABSOLUTE_PATH name BASE_DIRECTORY "${arg_BASE_DIR}" NORMALIZE OUTPUT_VARIABLE f)
    if(NOT EXISTS "${f}" OR IS_DIRECTORY "${f}")
      message(FATAL_ERROR "source fingerprint: ${f} does not exist")
    endif()
    list(APPEND starts "${f}")
  endforeach()

  # Depth first from each source. A file on top of the stack is first read and scanned:
  # its label (_tkh_label_), its bytes with their label and length (_tkh_entry_), what its
  # #include lines resolve to (_tkh_kids_). Its includes not yet closed go on top of it;
  # when it is on top again they are, and its closure (_tkh_closure_) is itself, then
  # theirs in the order of its lines, each file once. Without include cycles that is the order of a depth-first
  # walk from it (a file already taken brings only files already taken). An include that
  # is scanned and not closed is below it on the stack: a cycle (legal under include
  # guards; none of ours has one), which leaves closures made inside it incomplete; then,
  # once every file is scanned, each source gets a depth-first walk of its own instead.
  set(cyclic FALSE)
  foreach(start IN LISTS starts)
    set(stack "${start}") # (short: CMake rewrites all of a list to take one item off)
    while(stack)
      list(GET stack -1 f)
      if(DEFINED "_tkh_closure_${f}")
        list(POP_BACK stack)
        continue()
      endif()
      if(NOT DEFINED "_tkh_kids_${f}")
        cmake_path(GET f PARENT_PATH here)
        if(NOT DEFINED "_tkh_skip_${here}") # per folder: the length of its root's path
          set("_tkh_skip_${here}" "")
          foreach(root IN LISTS roots)
            string(FIND "${here}/" "${root}" at)
            if(at EQUAL 0)
              string(LENGTH "${root}" "_tkh_skip_${here}")
              break()
            endif()
          endforeach()
        endif()
        if("${_tkh_skip_${here}}" STREQUAL "")
          list(JOIN roots ", " roots_text)
          message(FATAL_ERROR "source fingerprint: ${f} is outside the include folders and "
            "the generated folder (${roots_text}); a fingerprint cannot name it without its "
            "absolute path")
        endif()
        string(SUBSTRING "${f}" ${_tkh_skip_${here}} -1 label)
        file(READ "${f}" text)
        string(LENGTH "${text}" size)
        set("_tkh_label_${f}" "${label}")
        set("_tkh_entry_${f}" "${label}\n${size}\n${text}")
        string(REGEX MATCHALL "\n[ \t]*#[ \t]*include[ \t]*(\"[^\"\n]*\"|<[^>\n]*>)" lines "\n${text}")
        list(TRANSFORM lines REPLACE "^\n[ \t]*#[ \t]*include[ \t]*\"(.*)\"$" "q:\\1")
        list(TRANSFORM lines REPLACE "^\n[ \t]*#[ \t]*include[ \t]*<(.*)>$" "a:\\1")
        set(kids "")
        foreach(line IN LISTS lines)
          # The same line in the same folder finds the same file (every kernel's
          # "tokitai_hip/codegen/hip_platform.h"): looked up once.
          if(NOT DEFINED "_tkh_found_${here}/${line}")
            string(SUBSTRING "${line}" 2 -1 inc)
            set(candidates "")
            if(IS_ABSOLUTE "${inc}")
              set(candidates "${inc}")
            else()
              if(line MATCHES "^q:")
                list(APPEND candidates "${here}/${inc}")
              endif()
              foreach(d IN LISTS include_dirs)
                list(APPEND candidates "${d}${inc}")
              endforeach()
            endif()
            set(found "")
            foreach(c IN LISTS candidates)
              if(EXISTS "${c}" AND NOT IS_DIRECTORY "${c}")
                cmake_path(NORMAL_PATH c OUTPUT_VARIABLE found)
                break()
              endif()
            endforeach()
            if(found STREQUAL "" AND line MATCHES "^q:")
              list(JOIN include_dirs ", " dirs_text)
              message(FATAL_ERROR "source fingerprint: ${f} includes \"${inc}\", found "
                "neither beside it nor in the include folders (${dirs_text})")
            endif()
            set("_tkh_found_${here}/${line}" "${found}") # empty: a toolchain header
          endif()
          list(APPEND kids ${_tkh_found_${here}/${line}})
        endforeach()
        list(REMOVE_DUPLICATES kids)
        set("_tkh_kids_${f}" "${kids}")
        set(pending "")
        foreach(c IN LISTS kids)
          if(DEFINED "_tkh_closure_${c}")
          elseif(DEFINED "_tkh_kids_${c}")
            set(cyclic TRUE)
          else()
            list(APPEND pending "${c}")
          endif()
        endforeach()
        if(pending)
          list(REVERSE pending) # the stack's last is taken first: the first include first
          list(APPEND stack ${pending})
          continue()
        endif()
      endif()
      set(closure "${f}")
      foreach(c IN LISTS "_tkh_kids_${f}")
        list(APPEND closure ${_tkh_closure_${c}})
      endforeach()
      list(REMOVE_DUPLICATES closure)
      set("_tkh_closure_${f}" "${closure}")
      list(POP_BACK stack)
    endwhile()
  endforeach()
  if(cyclic)
    foreach(start IN LISTS starts)
      set(stack "${start}")
      set(closure "")
      while(stack)
        list(POP_BACK stack f)
        list(FIND closure "${f}" at)
        if(at EQUAL -1)
          list(APPEND closure "${f}")
          set(kids "${_tkh_kids_${f}}")
          list(REVERSE kids)
          list(APPEND stack ${kids})
        endif()
      endwhile()
      set("_tkh_closure_${start}" "${closure}") # (only the sources' closures are read below)
    endforeach()
  endif()

  list(LENGTH arg_SOURCES left) # names: SOURCES, then FINGERPRINTS
  foreach(name f IN ZIP_LISTS names starts)
    set(${prefix}_FILES_${name} "${_tkh_closure_${f}}" PARENT_SCOPE)
    if(left GREATER 0)
      math(EXPR left "${left} - 1")
      continue()
    endif()
    set(labels "")
    set(data "")
    foreach(g IN LISTS "_tkh_closure_${f}")
      list(APPEND labels "${_tkh_label_${g}}")
      string(APPEND data "${_tkh_entry_${g}}")
    endforeach()
    string(SHA256 fp "${data}")
    set(${prefix}_LABELS_${name} "${labels}" PARENT_SCOPE)
    set(${prefix}_SHA256_${name} "sha256:${fp}" PARENT_SCOPE)
  endforeach()
endfunction()
