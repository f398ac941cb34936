/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the userspace builds of the decoder add to it (sframe_user_stub.c):
 * the FRE index in memory of its own.  The kernel module keeps its indexes
 * with its kernel copies (registry/copy.c).
 */
#ifndef _SFRAME_USER_H
#define _SFRAME_USER_H

#include "sframe/sframe.h"

int sfu_sframe_fre_index_alloc(struct sfu_sframe_section *sec);
void sfu_sframe_fre_index_free(struct sfu_sframe_section *sec);

#endif /* _SFRAME_USER_H */
