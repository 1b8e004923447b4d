/*
 * llc_mitosis_print.h - the scx_mitosis model's layout of an evaluation as
 * text and JSON (llc_mitosis_print.c), for extract -v, --llc-json and the
 * report; part of the room's contract through llc.h.
 */
#ifndef SCX_LLC_MITOSIS_PRINT_H
#define SCX_LLC_MITOSIS_PRINT_H

#include <stdio.h>

#include "llc/llc_types.h"

struct jsonw;

/* -v's one line: the model, its options and each cell's and subcell's CPU run with its LLCs. */
void llc_mitosis_print(FILE *f, const struct llc_share_result *r);
/* -v's subcell order lines: the clustering's order and the best one for the layout, with their predicted shares. */
void llc_mitosis_print_orders(FILE *f, const struct llc_share_result *r);
/* "model", "orders" and "layout" of the JSON sidecar (schemas/llc-sharing.schema.json). */
void llc_mitosis_write_json(struct jsonw *w, const struct llc_share_result *r);
/* The predicted figures' model for people: "scx_mitosis" or "LLC-packing". */
const char *llc_model_name(const struct llc_share_result *r);

#endif
