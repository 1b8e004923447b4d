/*
 * cell_config_read.h - reading back the cell config extract prints
 * (extract/sharing/cell_config.h), for `scxprof place`: a JSON array of top-level
 * cells, each {"name": S, "matches": {"CgroupRegex": S} | {"CgroupContains":
 * S} | {}, "subcells": [...]?}, each subcell {"name": S, "matches":
 * [[{"CommPrefix": S}?, {"Hint": U64}?], ...]} (clauses OR, conditions
 * AND; an empty clause matches anything). Unknown keys, a subcell with
 * subcells, a Hint that is not an unsigned 64-bit integer or a string with
 * a NUL in it are refused: the config a scheduler would read must be the
 * one placed.
 */
#ifndef SCX_EXTRACT_CELL_CONFIG_READ_H
#define SCX_EXTRACT_CELL_CONFIG_READ_H

#include "extract/sharing/cell_config.h"

/* Largest config file read. */
#define CELL_CONFIG_MAX_BYTES (64u << 20)

/* Read the config at path into *c (freed by cell_config_free). -1 (scx_fail naming path and what is wrong) on error. */
int cell_config_read(const char *path, struct cell_config *c);

#endif
