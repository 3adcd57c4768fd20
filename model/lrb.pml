/*
 * Promela model of the LRB write/read protocol (kernel/trace/lrb.c,
 * CONFIG_LRB_SYNC_LOCAL), checked exhaustively by spin.
 *
 * What is modelled: the buffer of one CPU with NSUB sub-buffers of SUBSZ
 * units (one unit of packet header, the rest records of 1 or 2 units).
 * On that CPU a task writer is interrupted at any statement by an
 * interrupt writer, which itself may be interrupted by an NMI writer; each
 * nested writer runs to completion before the one it interrupted goes on,
 * as on a real CPU. A reader on another CPU takes and puts sub-buffers
 * concurrently. At the end the task closes the open sub-buffer (as
 * lrb_flush() does on the CPU) and the reader drains everything.
 *
 * Memory model. Without -DWEAK spin interleaves statements, so each CPU's
 * accesses are seen in program order (sequential consistency). With
 * -DWEAK the two CPUs see memory as the Linux kernel memory model allows
 * between barriers:
 *  - Store buffering on the writer CPU: every store of a writer to a
 *    location the reader reads (record units, packet header, content size,
 *    events_discarded, commit counts, base marks) is seen at once by the
 *    writer CPU (its nested contexts included) but reaches the reader
 *    later, location by location in any order: before each of its loads
 *    the reader may let any pending store through (observe()). A write
 *    barrier (LRB-W1) or a full barrier (LRB-W3, LRB-W4) makes every earlier
 *    store visible before any later one: modelled as draining the buffer
 *    there (drain()).
 *  - Load reordering on the reader CPU: where a labelled barrier is
 *    absent, the loads it orders may be satisfied in the other order.
 *  - Load-to-store reordering on the writer CPU (LRB-W2 absent): the
 *    writer's load of consumed may be satisfied after its later stores
 *    became visible. An interleaving model cannot delay a load, so the
 *    writer guesses the value the load will return and the guess is
 *    checked when consumed reaches it (guessing); an execution whose
 *    guess never comes true is not one the hardware can produce, and
 *    the assertions ignore it.
 * Each barrier of lrb.c that the model covers has a mutant that removes
 * it, and spin must find a violation for each.
 *
 * Each step is tagged with the code it stands for, as
 *	@<function> "<code fragment>"
 * and model/refs.py checks that every fragment still exists in
 * that function of lrb.c, printing its line.
 *
 * Assertions:
 *  A1 a delivered sub-buffer holds only complete, fully written records
 *     (no unwritten unit, no torn two-unit record, header seq right);
 *  A2 no two writers get overlapping slots (ghost ownership of units);
 *  A3 slot order equals timestamp order: timestamps strictly increase
 *     along every sub-buffer and across the sub-buffers delivered;
 *  A4 at the end, written == delivered + lost (all causes) exactly;
 *  A5 the record count a reader or a pushing writer takes from the commit
 *     counts equals the records the sub-buffer holds (walked, as a ghost);
 *  A6 at the end, the written count derived from the commit counts
 *     (lrb_committed() plus the losses but overwritten) equals the
 *     records the writers were asked for;
 *  A7 events_discarded never decreases from a delivered packet to the
 *     next, and never exceeds the records lost so far;
 *  A8 a sub-buffer whose header or record count looks wrong to the reader
 *     has been reused under it (consumed moved): the reader never reports
 *     a good sub-buffer as corrupt.
 *
 * Bounds: NSUB = 2 sub-buffers of SUBSZ = 4 units; the task writes
 * NTASK = 2 records, the interrupt NIRQ = 1 and the NMI NNMI = 1, each
 * record 1 or 2 units, chosen nondeterministically, so the buffer wraps;
 * the interrupt and the NMI may arrive before, between or inside any
 * statement of the writers they interrupt, or not at all. Both modes,
 * by -DMODE=DISCARD or -DMODE=OVERWRITE. The search is exhaustive
 * (no bitstate hashing): about 3e7 states and 70 s per mode.
 *
 * Mutants (-DMUTANT_...), each must make spin find a violation:
 *  MUTANT_COMMIT_EARLY  commit count added before the payload is written
 *  MUTANT_NO_RETRY      reserve publishes without the cmpxchg check
 *  MUTANT_NO_CC_CHECK   the reader does not check the commit count
 *  MUTANT_PUSH_FALLTHROUGH  after losing the race to push the reader
 *			 (overwrite mode), the writer publishes the slot it
 *			 computed before instead of recomputing it
 *  MUTANT_MARK_LATE     the opener of a generation takes the record mark
 *			 after its publish, when nested writers may have
 *			 committed into the generation already
 *  MUTANT_DISC_LATE     a closer reads the lost count for events_discarded
 *			 after its publish, not before (bug 1 of issue 14)
 * and, with -DWEAK, one per barrier:
 *  MUTANT_NO_W1         no smp_wmb() before the commit count add
 *  MUTANT_NO_R1         no smp_rmb() after the reader's commit count load
 *  MUTANT_NO_R2         the reader's release of consumed is not a full
 *			 barrier: its loads of the sub-buffer may come after
 *  MUTANT_NO_W2         the writer's load of consumed is not an acquire
 *  MUTANT_NO_R3         no smp_rmb() between the reader's loads of the
 *			 packet header and its second load of consumed
 *  MUTANT_NO_W3 with MUTANT_NO_W4  the writer's push of consumed is not a
 *			 full barrier, and neither is the smp_mb() of
 *			 lrb_mark_opened() that follows it: its stores into
 *			 the reused sub-buffer may be seen first.
 * LRB-W3 alone is not needed: in overwrite mode, the only mode that
 * pushes, lrb_mark_opened() follows the push with LRB-W4 before any store
 * into the sub-buffer, which orders the same accesses. check.sh checks
 * that the model without LRB-W3 still verifies, and that it fails without
 * both.
 *
 * Snapshots (-DSNAP, overwrite mode): a snapshot reader (snapper()) takes
 * the place of the consuming one, and writers raise opened before
 * reusing a sub-buffer (A9-A11 at snapper()). Mutants:
 *  MUTANT_NO_R6         consumed and offset read in the other order by
 *			 lrb_snapshot() (refuted on sequential consistency:
 *			 two pushes between the loads)
 *  MUTANT_NO_R5, MUTANT_NO_R4, MUTANT_NO_W4  (weak memory) the snapshot
 *			 reader's header loads before the commit count, its
 *			 load of opened before its loads of the sub-buffer,
 *			 the writer's stores before opened
 *
 * Weak-memory bounds: the NMI writer is left out (NNMI=0) and sub-buffers
 * hold 3 units (SUBSZ=3), so that three records wrap the buffer, with
 * exact fits; about 3e7 states and 90 s per mode. The snapshot reader
 * takes NSNAP = 1 snapshot, at any point of the run: 5e7 states and 60 s
 * on sequential consistency, 6e7 and 2 min on weak memory.
 */

#ifndef NSUB
#define NSUB	2
#endif
#ifndef SUBSZ
#define SUBSZ	4
#endif
#define HDR	1
#define BUFSZ	(NSUB * SUBSZ)
#ifndef NTASK
#define NTASK	2
#endif
#ifndef NIRQ
#define NIRQ	1
#endif
#ifndef NNMI
#define NNMI	1
#endif
#define NREC	(NTASK + NIRQ + NNMI)

#define DISCARD		0
#define OVERWRITE	1
#ifndef MODE
#define MODE	DISCARD
#endif

/* Contexts of the writer CPU; OFF once tracing has stopped. */
#define TASK	1
#define IRQ	2
#define NMI	3
#define OFF	4

/* Record encoding in a unit: first unit ts * 4 + ln, second ts * 4 + 3. */
#define REC(ts, ln)	((ts) * 4 + (ln))
#define CONT(ts)	((ts) * 4 + 3)

byte offset;		/* buf->offset, free running (units) */
byte opened;		/* buf->opened (-DSNAP) */
byte consumed;		/* buf->consumed */
byte commit[NSUB];	/* buf->cc[].count, bytes, free running */
byte crec[NSUB];	/* records counted with them (upper half of count) */
byte base[NSUB];	/* buf->cc[].base */
byte replaced;		/* buf->replaced */
byte mem[BUFSZ];	/* the sub-buffers; 0 = never written */
byte content[NSUB];	/* packet header content_size */
byte disc[NSUB];	/* packet header events_discarded */
byte owner[BUFSZ];	/* ghost: writer slot id holding a unit, 0 = free */
byte running = TASK;	/* which context runs on the writer CPU */
byte clock = 1;		/* timestamp source */
byte written, lost, overwritten, delivered;
bool finished;

/*
 * What the reader CPU sees of the locations above that the writer CPU
 * stores to, and which of them have a store still in flight (bit L_* of
 * pend). Without -DWEAK both views are one.
 */
#ifdef WEAK
byte gmem[BUFSZ], gcontent[NSUB], gdisc[NSUB], gcommit[NSUB], gcrec[NSUB];
byte gbase[NSUB];
byte gopened, goffset;
int pend;
bool cstale;		/* the reader's loads of consumed see the value before
			 * the last push (MUTANT_NO_W3) */
#define PEND(l)		pend = pend | (1 << (l))
#define UNSTALE		cstale = 0
/* A store to offset, seen late only by a snapshot reader: */
#ifdef SNAP
#define PEND_OFFSET	; PEND(L_OFFSET)
#else
#define PEND_OFFSET
#endif
#else
#define PEND_OFFSET
#define gmem		mem
#define gcontent	content
#define gdisc		disc
#define gcommit		commit
#define gcrec		crec
#define gbase		base
#define gopened		opened
#define goffset		offset
#define cstale		0
#define PEND(l)		skip
#define UNSTALE		skip
#endif
#define L_MEM(i)	(i)
#define L_CONTENT(i)	(BUFSZ + (i))
#define L_CC(i)		(BUFSZ + NSUB + (i))
#define L_BASE(i)	(BUFSZ + 2 * NSUB + (i))
#define L_DISC(i)	(BUFSZ + 3 * NSUB + (i))
#define L_CONS		(BUFSZ + 4 * NSUB)
#define L_OPENED	(L_CONS + 1)
#define L_OFFSET	(L_CONS + 2)

/* The reader's plain load of consumed. */
#define RCONSUMED	(consumed - cstale * SUBSZ)

/*
 * MUTANT_NO_W2: a writer used a guessed value of consumed, guessv; the
 * execution is real only if consumed reaches it (guess_check()).
 */
bool guessing;
byte guessv;
#define REAL		(!guessing)

/* Every statement of a writer runs only while its context owns the CPU:
 * see the provided clauses of the proctypes. */
#define G

/*
 * A3: commit_done() for the generation before the one at @start. Offsets
 * do not wrap in the model, so the masked compare of lrb_commit_done() is
 * an equality.
 */
#define PREV_GEN_DONE(start) \
	(commit[((start) / SUBSZ) % NSUB] == ((start) / BUFSZ) * SUBSZ)

#ifdef WEAK
/* One store in flight reaches the reader. */
#define PICK(b)	:: (pend >> (b)) & 1 -> k = b
inline propagate_one(k)
{
	atomic {
		pend != 0;
		if
		PICK(0) PICK(1) PICK(2) PICK(3) PICK(4) PICK(5) PICK(6) PICK(7)
		PICK(8) PICK(9) PICK(10) PICK(11) PICK(12) PICK(13) PICK(14)
		PICK(15) PICK(16) PICK(17) PICK(18)
		fi;
		if
		:: k < BUFSZ -> gmem[k] = mem[k]
		:: k >= L_CONTENT(0) && k < L_CC(0) ->
			gcontent[k - L_CONTENT(0)] = content[k - L_CONTENT(0)]
		:: k >= L_CC(0) && k < L_BASE(0) ->
			gcommit[k - L_CC(0)] = commit[k - L_CC(0)];
			gcrec[k - L_CC(0)] = crec[k - L_CC(0)]
		:: k >= L_BASE(0) && k < L_DISC(0) ->
			gbase[k - L_BASE(0)] = base[k - L_BASE(0)]
		:: k >= L_DISC(0) && k < L_CONS ->
			gdisc[k - L_DISC(0)] = disc[k - L_DISC(0)]
		:: k == L_CONS -> cstale = 0
		:: k == L_OPENED -> gopened = opened
		:: k == L_OFFSET -> goffset = offset
		fi;
		pend = pend & ~(1 << k);
		k = 0
	}
}

/* Before a load of the reader: any stores in flight may arrive first. */
inline observe(k)
{
	do
	:: propagate_one(k)	/* executable while a store is in flight */
	:: break
	od;
	k = 0	/* not a d_step: break may not jump into one */
}

/* A barrier of the writer CPU: every store so far is visible. */
inline drain(k)
{
	d_step {
		k = 0;
		do
		:: k < BUFSZ -> gmem[k] = mem[k]; k++
		:: else -> break
		od;
		k = 0;
		do
		:: k < NSUB ->
			gcontent[k] = content[k]; gdisc[k] = disc[k];
			gcommit[k] = commit[k]; gcrec[k] = crec[k];
			gbase[k] = base[k]; k++
		:: else -> break
		od;
#ifdef SNAP
		gopened = opened; goffset = offset;
#endif
		pend = 0; cstale = 0; k = 0
	}
}
/*
 * OBSERVE and DRAIN start a statement: observe() or drain() with -DWEAK,
 * nothing (not even a step) without.
 */
#define OBSERVE	observe(k);
#define DRAIN	drain(k);
#else
#define OBSERVE
#define DRAIN
#endif

/* MUTANT_NO_W2: consumed reached the guessed value. */
inline guess_check()
{
	if
	:: guessing && consumed == guessv -> guessing = 0; guessv = 0
	:: else
	fi
}

/*
 * Commit @n units and @r records to sub-buffer @i: one add on 64-bit,
 * after the write barrier.
 */
inline commit_add(i, n, r)
{
#ifndef MUTANT_NO_W1
	DRAIN	/* @lrb_commit_bytes "LRB-W1: order the record" */
#endif
	/* @lrb_commit_bytes "count = lrb_commit_add(&c->count, bytes);" */
	G d_step { commit[i] = commit[i] + n; crec[i] = crec[i] + r; PEND(L_CC(i)) }
}

/*
 * Ghost check, no code: walk the records of the sub-buffer starting at
 * @pos in the reader's view if @g, else the writer CPU's, count them into @n, set @ok to 0 on anything
 * malformed, check timestamps against @last.
 */
#define VMEM(g, i)	(g -> gmem[i] : mem[i])
inline walk(g, pos, n, ok, last, u, v, c)
{
    d_step {
	c = (g -> gcontent[(pos / SUBSZ) % NSUB] : content[(pos / SUBSZ) % NSUB]);
	if
	:: VMEM(g, pos % BUFSZ) != pos / SUBSZ + 1 -> ok = 0
	:: else
	fi;
	u = HDR;
	n = 0;
	do
	:: ok && u < c ->
		v = VMEM(g, (pos + u) % BUFSZ);
		if
		:: v % 4 == 1 && v / 4 > last -> last = v / 4; u = u + 1; n++
		:: v % 4 == 2 && v / 4 > last && u + 1 < c &&
		   VMEM(g, (pos + u + 1) % BUFSZ) == CONT(v / 4) ->
			last = v / 4; u = u + 2; n++
		:: else -> ok = 0
		fi
	:: else -> break
	od;
	if
	:: c < HDR || c > SUBSZ -> ok = 0
	:: else
	fi;
	u = 0; v = 0; c = 0
    }
}

/* Claim the units of a slot (A2). */
inline claim(from, ln, who, k)
{
	k = 0;
	do
	:: k < ln ->
		assert(owner[(from + k) % BUFSZ] == 0 || !REAL);	/* A2 */
		owner[(from + k) % BUFSZ] = who;
		k++
	:: else -> break
	od
}

/* Release the units of a whole sub-buffer when it is consumed or pushed. */
inline release(pos, k)
{
	k = 0;
	do
	:: k < SUBSZ -> owner[(pos + k) % BUFSZ] = 0; k++
	:: else -> break
	od
}

/* Write the end fields of the sub-buffer holding @pos. */
inline close_fields(pos, c, d)
{
	/* @lrb_close_fields "ph->content_size = (u64)content * BITS_PER_BYTE;" */
	G d_step { content[(pos / SUBSZ) % NSUB] = c; PEND(L_CONTENT((pos / SUBSZ) % NSUB)) };
	/* @lrb_close_fields "ph->events_discarded = discarded;" */
	G d_step { disc[(pos / SUBSZ) % NSUB] = d; PEND(L_DISC((pos / SUBSZ) % NSUB)) }
}

/* Store a record unit. */
#define STORE_MEM(i, v)	d_step { mem[(i) % BUFSZ] = v; PEND(L_MEM((i) % BUFSZ)) }

/* The writer's load of consumed (LRB-W2), or a guess at it. */
inline load_consumed()
{
#ifdef MUTANT_NO_W2
	if
	:: G cons = consumed
	:: G !guessing && MODE == DISCARD ->
		/* satisfied later, once the reader has released one more */
		cons = consumed + SUBSZ; guessing = 1; guessv = cons
	fi
#else
	G cons = consumed	/* @lrb_next_subbuf_free "LRB-W2: pairs with LRB-R2" */
#endif
}

/* One record of @ln units, from context @me. */
inline write_record(ln)
{
	written++;	/* ghost: records asked for */
	ret = 0;
	do
	:: G old = offset;	/* @__lrb_reserve_slow "p.old = local_read(&w->offset);" */
	   G atomic { ts = clock; clock++ };	/* @__lrb_reserve_slow "p.ts = lrb_clock(w);" */
	   G sw_out = 0; sw_in = 0; begin = old;
	   if
	   :: G (old % SUBSZ != 0 && old % SUBSZ + ln <= SUBSZ) -> skip
	   :: G else ->	/* @__lrb_reserve_slow "ret = lrb_reserve_switch(buf, &p, size);" */
		sw_out = (old % SUBSZ != 0);	/* @lrb_reserve_switch "p->switch_out = (p->old & chan->subbuf_mask) != 0;" */
		start = old + (SUBSZ - old % SUBSZ) % SUBSZ;	/* @lrb_reserve_switch "start = ALIGN(p->old, chan->config.subbuf_size);" */
		if
		:: G !PREV_GEN_DONE(start) -> ret = 1	/* @lrb_next_subbuf_free "if (!lrb_commit_done(chan, count, start - size))" */
		:: G else -> mark = crec[(start / SUBSZ) % NSUB]	/* @lrb_next_subbuf_free "*mark = lrb_cc_mark(c, count);" */
		fi;
		if
		:: G ret == 0 ->
			load_consumed();
			if
			:: G start < cons -> ret = 2	/* @lrb_next_subbuf_free "if (ahead < 0)" */
			:: G start >= cons && start - cons < BUFSZ -> skip	/* @lrb_next_subbuf_free "if (ahead >= (long)size) {" */
			:: G start >= cons && start - cons >= BUFSZ -> push(cons)
			fi;
			mark_opened()
		:: G else
		fi;
		G begin = start + HDR; sw_in = 1	/* @lrb_reserve_switch "p->begin = start + LRB_PHDR_SIZE;" */
	   fi;
	   /* A slot that ends the sub-buffer exactly closes it. */
	   G closes = (ret == 0 && (begin + ln) % SUBSZ == 0);	/* @__lrb_reserve_slow "p.closes = !(p.end & chan->subbuf_mask);" */
#ifndef MUTANT_DISC_LATE
	   if
	   :: G ret == 0 && (sw_out || closes) -> dsc = lost	/* @__lrb_reserve_slow "p.discarded = lrb_lost_discarded(buf);" */
	   :: G else
	   fi;
#endif
	   if
	   :: G ret == 1 -> break		/* full: dropped */
#ifdef MUTANT_PUSH_FALLTHROUGH
	   :: G ret == 2 ->	/* publish the stale fast-path slot */
		ret = 0; begin = old; sw_in = 0; sw_out = 0; closes = 0;
		atomic {
			if
			:: offset == old -> offset = begin + ln PEND_OFFSET; break
			:: else
			fi
		}
#else
	   :: G ret == 2 -> ret = 0		/* consumed moved: recompute */
#endif
	   :: G ret == 0 ->
#ifdef MUTANT_NO_RETRY
		G offset = begin + ln PEND_OFFSET; break
#else
		G atomic {	/* @lrb_offset_publish "return local_cmpxchg(&w->offset, old, new) == old;" */
			if
			:: offset == old -> offset = begin + ln PEND_OFFSET; break
			:: else
			fi
		}
#endif
	   fi
	od;
#ifdef MUTANT_DISC_LATE
	G dsc = lost;
#endif
	if
	:: G ret == 1 -> lost++	/* @__lrb_reserve_slow "lrb_lost(buf, ret == -E2BIG ? LRB_LOST_TOO_BIG : LRB_LOST_FULL);" */
	:: G ret == 0 ->
		id++;
		claim(begin, ln, me * 16 + id, k);
		if
		:: G sw_out ->	/* @lrb_switch_out "lrb_close_fields(buf, old, content, ts, discarded);" */
			close_fields(old, old % SUBSZ, dsc);
			commit_add((old / SUBSZ) % NSUB, SUBSZ - old % SUBSZ, 0)	/* @lrb_switch_out "chan->config.subbuf_size - content, false);" */
		:: G else
		fi;
		if
		:: G sw_in ->
#ifdef MUTANT_MARK_LATE
			mark = crec[(start / SUBSZ) % NSUB];
#endif
			replaced = replaced + mark - base[(start / SUBSZ) % NSUB];	/* @lrb_gen_open "lrb_counter_add(&buf->replaced, lrb_cc_records(c->base, mark));" */
			G d_step { base[(start / SUBSZ) % NSUB] = mark; PEND(L_BASE((start / SUBSZ) % NSUB)) };	/* @lrb_gen_open "WRITE_ONCE(c->base, mark);" */
			G STORE_MEM(start, start / SUBSZ + 1)	/* @lrb_switch_in "ph->packet_seq_num = seq;" */
		:: G else
		fi;
		if
		:: G closes ->	/* @__lrb_reserve_slow "lrb_close_fields(buf, p.begin, chan->config.subbuf_size, p.ts," */
			close_fields(begin, SUBSZ, dsc)
		:: G else
		fi;
#ifdef MUTANT_COMMIT_EARLY
		commit_add((begin / SUBSZ) % NSUB, ln + sw_in * HDR, 1);
#endif
		G STORE_MEM(begin, REC(ts, ln));	/* @lrb_slot_fill "lrb_write_header(p, id, len, ts, hlen);" */
		if
		:: G ln == 2 -> STORE_MEM(begin + 1, CONT(ts))	/* lrb_write() of the caller */
		:: G else
		fi;
#ifndef MUTANT_COMMIT_EARLY
		commit_add((begin / SUBSZ) % NSUB, ln + sw_in * HDR, 1)	/* @lrb_commit "lrb_commit_bytes(w, slot->cc_index, slot->commit_size, true);" */
#endif
	fi;
	/* Forget this record's locals: keeps the state space small. */
	d_step {
		old = 0; start = 0; begin = 0; cons = 0; ts = 0; pn = 0;
		pok = 0; plast = 0; ret = 0; sw_out = 0; sw_in = 0; ln = 0;
		mark = 0; wn = 0; dsc = 0; closes = 0
	}
}

/*
 * Overwrite mode: take the oldest sub-buffer from the reader, its records
 * counted from the commit count. Discard mode: the buffer is full.
 */
inline push(cons)
{
	if
	:: G MODE == DISCARD -> ret = 1	/* @lrb_next_subbuf_free "return -ENOSPC;" */
	:: G MODE == OVERWRITE ->
		pn = mark - base[(cons / SUBSZ) % NSUB];	/* @lrb_next_subbuf_free "lrb_cc_records(READ_ONCE(c->base), *mark)))" */
		wn = 0; pok = 1; plast = 0;
		walk(0, cons, wn, pok, plast, pu, pv, pc);
#ifndef MUTANT_NO_W3
		DRAIN	/* @lrb_push_reader "LRB-W3: full barrier" */
#endif
		G atomic {	/* @lrb_push_reader "if (atomic_long_cmpxchg(&buf->consumed, consumed," */
			if
			:: consumed == cons ->
				consumed = cons + SUBSZ;
#ifdef MUTANT_NO_W3
				cstale = 1; PEND(L_CONS);
#endif
				guess_check();
				assert(pok);	/* complete and not reused: it parses */
				assert(pn == wn);	/* A5 */
				overwritten = overwritten + pn;
				release(cons, k)
			:: else -> ret = 2
			fi
		}
	fi
}

/*
 * Overwrite mode: a snapshot reader (not modelled) is told the sub-buffer
 * is being reused before any store into it; the full barrier also orders
 * the push of consumed before those stores, as LRB-W3 does.
 */
inline mark_opened()
{
#ifdef SNAP
	if
	:: G MODE == OVERWRITE && ret == 0 ->
		/* @lrb_mark_opened "prev = local_cmpxchg(&buf->opened, old, start);" */
		d_step {
			if
			:: start > opened -> opened = start; PEND(L_OPENED)
			:: else
			fi
		};
#ifndef MUTANT_NO_W4
		DRAIN	/* @lrb_mark_opened "LRB-W4: opened before the stores into the sub-buffer" */
#endif
		skip
	:: G else
	fi
#elif defined(WEAK) && !defined(MUTANT_NO_W4)
	if
	:: G MODE == OVERWRITE && ret == 0 -> drain(k)	/* @lrb_mark_opened "LRB-W4: opened before the stores into the sub-buffer" */
	:: G else
	fi
#else
	skip
#endif
}

#define WRITER_LOCALS \
	byte old, start, begin, cons, ts, pn, pok, plast, pu, pv, pc, mark, wn; \
	byte ret, k, id, dsc; bool sw_out, sw_in, closes; byte ln

inline pick_len()
{
	if
	:: ln = 1
	:: ln = 2
	fi
}

proctype task() provided (running == TASK || running == OFF)
{
	byte me = TASK;
	byte n = 0;
	WRITER_LOCALS;

	do
	:: n < NTASK -> pick_len(); write_record(ln); n++
	:: else -> break
	od;
	/* Tracing stops: no more interrupts; close the open sub-buffer. */
	running = OFF;
	/* @lrb_switch_local "if (!(old & chan->subbuf_mask))" */
	old = offset;
	if
	:: old % SUBSZ != 0 ->
		dsc = lost;	/* @lrb_switch_local "discarded = lrb_lost_discarded(buf);" */
		offset = old + (SUBSZ - old % SUBSZ) PEND_OFFSET;
		close_fields(old, old % SUBSZ, dsc);
		commit_add((old / SUBSZ) % NSUB, SUBSZ - old % SUBSZ, 0)
	:: else
	fi;
	/* The flush IPI returns: the reader sees everything. */
	DRAIN
	finished = 1
}

bool irq_started, nmi_started;

proctype irq() provided (running == IRQ || (running == TASK && !irq_started))
{
	byte me = IRQ;
	byte n = 0;
	byte prev;
	WRITER_LOCALS;

end_wait:
	atomic { running == TASK -> prev = TASK; running = IRQ; irq_started = 1 };
	do
	:: n < NIRQ -> pick_len(); write_record(ln); n++
	:: else -> break
	od;
	G running = prev
}

proctype nmi() provided (running == NMI ||
			 ((running == TASK || running == IRQ) && !nmi_started))
{
	byte me = NMI;
	byte n = 0;
	byte prev;
	WRITER_LOCALS;

end_wait:
	atomic { (running == TASK || running == IRQ) -> prev = running; running = NMI; nmi_started = 1 };
	do
	:: n < NNMI -> pick_len(); write_record(ln); n++
	:: else -> break
	od;
	G running = prev
}

/*
 * The reader's loads of a taken sub-buffer's base mark and packet header
 * (lrb_get_subbuf()), in the reader's view; hdr_ok() checks them as it does.
 */
inline load_header()
{
	d_step {
		bb = gbase[(pos / SUBSZ) % NSUB];	/* @lrb_get_subbuf "n = lrb_cc_records(READ_ONCE(c->base), lrb_cc_mark(c, count));" */
		hc = gcontent[(pos / SUBSZ) % NSUB];	/* @lrb_get_subbuf "content = READ_ONCE(ph->content_size) / BITS_PER_BYTE;" */
		hs = gmem[pos % BUFSZ]	/* @lrb_get_subbuf "seq = READ_ONCE(ph->packet_seq_num);" */
	}
}

#define HDR_OK	(hs == pos / SUBSZ + 1 && hc >= HDR && hc <= SUBSZ && rc >= bb && \
		 rc - bb <= hc - HDR && (rc - bb == 0) == (hc == HDR))	/* @lrb_get_subbuf "!lrb_records_ok(content, n)) {" */

/* The consumer's loads of the records and events_discarded. */
inline load_records()
{
	ok = 1; snap = last; wn = 0;
	walk(1, pos, wn, ok, snap, u, v, c);
	pd = gdisc[(pos / SUBSZ) % NSUB]
}

/* What a delivered sub-buffer must satisfy, and the reader's accounts. */
inline delivered_check()
{
	d_step {
		assert(ok || !REAL);	/* A1, A3 */
		assert(n == wn || !REAL);	/* A5 */
		assert(pd >= lastdisc && pd <= lost || !REAL);	/* A7 */
		last = snap;
		lastdisc = pd;
		delivered = delivered + n
	}
}

/* The reader, on another CPU. */
proctype reader()
{
	byte pos, cc, rc, bb, hc, hs, n, wn, last = 0, u, v, c, snap, i, sum, c2;
	byte pd, lastdisc = 0;
	bool ok, hok, early, late, put_ok;
	byte k;

	do
	:: OBSERVE
	   pos = RCONSUMED;	/* @lrb_get_subbuf "pos = atomic_long_read(&buf->consumed);" */
#ifdef MUTANT_NO_R1
	   /* The loads after the absent smp_rmb() may come first. */
	   if
	   :: OBSERVE early = 1; load_header(); load_records()
	   :: skip
	   fi;
#endif
	   OBSERVE
	   d_step { cc = gcommit[(pos / SUBSZ) % NSUB]; rc = gcrec[(pos / SUBSZ) % NSUB] }	/* @lrb_get_subbuf "count = local_read(&c->count);" */
#ifdef MUTANT_NO_CC_CHECK
	   if
	   :: pos >= offset -> if :: finished -> break :: else fi
	   :: else ->
#else
	   if
	   :: cc != (pos / BUFSZ + 1) * SUBSZ ->	/* @lrb_get_subbuf "if (!lrb_commit_done(chan, count, pos)) {" */
		if
		:: finished && consumed == pos && cc == commit[(pos / SUBSZ) % NSUB] -> break
		:: else
		fi
	   :: else ->
#endif
		/* @lrb_get_subbuf "LRB-R1: pairs with LRB-W1" */
#ifdef MUTANT_NO_R3
		c2 = RCONSUMED;	/* the second load of consumed, come first */
#endif
		if
		:: !early -> OBSERVE load_header()
		:: else
		fi;
		hok = HDR_OK;
		if
		:: !hok ->
#ifndef MUTANT_NO_R3
			/* @lrb_get_subbuf "LRB-R3: our loads of the sub-buffer before consumed." */
			OBSERVE
			c2 = RCONSUMED;	/* @lrb_get_subbuf "if (atomic_long_read(&buf->consumed) != pos)" */
#endif
			/* A8: reused under us, not corrupt */
			assert(c2 != pos || !REAL)
		:: else ->
			n = rc - bb;
			if
			:: !early -> OBSERVE load_records()
			:: else
			fi;
#ifdef MUTANT_NO_R2
			/* The loads may come after the release of consumed. */
			if
			:: !early -> late = 1
			:: skip
			fi;
#endif
			atomic {	/* @lrb_put_subbuf "LRB-R2: full barrier" */
				UNSTALE;
				if
				:: consumed == pos ->
					consumed = pos + SUBSZ;
					guess_check();
					release(pos, k);
					put_ok = 1;
					if
					:: !late -> delivered_check()
					:: else
					fi
				:: else	/* overwritten under us: -EIO, counted by the writer */
				fi
			};
			if
			:: put_ok && late ->
				/* the loads, once the writers may reuse it */
				OBSERVE load_records(); delivered_check()
			:: else
			fi
		fi;
		d_step {
			n = 0; wn = 0; rc = 0; bb = 0; hc = 0; hs = 0; snap = 0; ok = 0;
			hok = 0; pd = 0; k = 0; c2 = 0; early = 0; late = 0; put_ok = 0
		}
	   fi
	od;
	if
	:: REAL ->
		assert(written == delivered + lost + overwritten);	/* A4 */
		/* @lrb_committed "n += lrb_cc_records(READ_ONCE(c->base)," */
		sum = replaced;
		for (i : 0 .. NSUB - 1) {
			sum = sum + crec[i] - base[i]
		}
		assert(sum + lost == written)	/* A6 */
	:: else
	fi
}

#ifdef SNAP
#ifndef NSNAP
#define NSNAP	1
#endif
/*
 * A snapshot reader (overwrite mode, -DSNAP), in place of the consuming
 * one: lrb_snapshot() takes the window of complete sub-buffers, then
 * lrb_snapshot_get() and lrb_snapshot_put() read one of them without
 * consuming it, while writers reuse sub-buffers without asking. NSNAP
 * snapshots.
 *  A9  a sub-buffer snapshot_get() finds complete and not reused has a
 *      good header: it never reports a good sub-buffer as corrupt;
 *  A10 what snapshot_put() calls valid holds only complete records of the
 *      generation at that position;
 *  A11 the window never ends before it begins.
 */
proctype snapper()
{
	byte tries, c0, e, b, pos, cc, rc, bb, hc, hs, op, wn, u, v, c, snap;
	bool ok, hok;
	byte k;

	do
	:: tries < NSNAP ->
		tries++;
#ifdef MUTANT_NO_R6
		OBSERVE
		e = goffset - goffset % SUBSZ;	/* satisfied first */
#endif
		OBSERVE
		c0 = RCONSUMED;	/* @lrb_snapshot "consumed = atomic_long_read(&buf->consumed);" */
#ifndef MUTANT_NO_R6
		/* @lrb_snapshot "LRB-R6: consumed before offset." */
		OBSERVE
		e = goffset - goffset % SUBSZ;	/* @lrb_snapshot "e = local_read(&buf->w.offset) & ~chan->subbuf_mask;" */
#endif
		assert(e >= c0);	/* A11 */
		b = (e - c0 > BUFSZ -> e - BUFSZ : c0);
		if
		:: b < e -> pos = b
		:: b + SUBSZ < e -> pos = b + SUBSZ
		:: else -> goto next
		fi;
#ifdef MUTANT_NO_R5
		OBSERVE load_header();	/* satisfied before the count */
#endif
		OBSERVE
		d_step { cc = gcommit[(pos / SUBSZ) % NSUB]; rc = gcrec[(pos / SUBSZ) % NSUB] }	/* @lrb_snapshot_get "cc = local_read(&buf->w.cc[lrb_subbuf_index(chan, p)].count);" */
		if
		:: cc != (pos / BUFSZ + 1) * SUBSZ -> goto next	/* -EAGAIN or -ESTALE */
		:: else
		fi;
#ifndef MUTANT_NO_R5
		/* @lrb_snapshot_get "LRB-R5: pairs with LRB-W1" */
		OBSERVE load_header();
#endif
#ifdef MUTANT_NO_R4
		op = gopened;	/* satisfied before the header loads */
#else
		/* @lrb_snapshot_stale "LRB-R4: the caller's loads of the sub-buffer before opened." */
		OBSERVE
		op = gopened;	/* @lrb_snapshot_stale "return (long)(local_read(&buf->opened) - next) >= 0;" */
#endif
		if
		:: op >= pos + BUFSZ -> goto next	/* -ESTALE */
		:: else
		fi;
		/* @lrb_snapshot_get "if (!lrb_header_ok(chan, p, magic, seq, content))" */
		hok = hs == pos / SUBSZ + 1 && hc >= HDR && hc <= SUBSZ;
		assert(hok);	/* A9 */
#ifdef MUTANT_NO_R4
		op = gopened;	/* snapshot_put's load, before the records' */
		OBSERVE
		ok = 1; snap = 0; wn = 0;
		walk(1, pos, wn, ok, snap, u, v, c);
#else
		OBSERVE
		ok = 1; snap = 0; wn = 0;
		walk(1, pos, wn, ok, snap, u, v, c);
		OBSERVE
		op = gopened;	/* @lrb_snapshot_put "return lrb_snapshot_stale(buf, sb->pos) ? -ESTALE : 0;" */
#endif
		if
		:: op >= pos + BUFSZ	/* -ESTALE: dropped */
		:: else -> assert(ok)	/* A10 */
		fi;
next:
		k = 0;
		d_step {
			c0 = 0; e = 0; b = 0; pos = 0; cc = 0; rc = 0; bb = 0; hc = 0;
			hs = 0; op = 0; wn = 0; snap = 0; ok = 0; hok = 0; k = 0
		}
	:: else -> break
	od
}
#endif

init {
	atomic {
		run task();
		run irq();
		run nmi();
#ifdef SNAP
		run snapper()
#else
		run reader()
#endif
	}
}
