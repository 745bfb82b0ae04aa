/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: session_claims.c's part of a session that ksym_tracefs.c calls
 * (the rest is declared in ksym_tracefs.h).
 */
#ifndef KSYM_CTL_SESSION_CLAIMS_H
#define KSYM_CTL_SESSION_CLAIMS_H

#include "ksym_tracefs.h"

/*
 * Drop the session's claims, under the state lock (@lock, from
 * ksym_state_lock(); -1 when it could not be had): the watches and options
 * no other run holds get back what they had before the first run claimed
 * them, where what the run set is still there. Without the lock nothing is
 * put back (the claims stay for ksym-ctl reset).
 */
void ksym_session_release_claims(struct ksym_session *s, int lock);

#endif
