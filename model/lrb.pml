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
 * Memory model: spin interleaves statements, so each CPU's accesses are
 * seen in program order. That is what the barriers of lrb.c buy: LRB-W1
 * (smp_wmb before the commit count add) and LRB-R1 (smp_rmb after the
 * commit count read) keep the payload/count and count/payload orders;
 * LRB-R2, LRB-W2 and LRB-W3 are full barriers or acquire. The model checks
 * the protocol given those orders, not the barrier placement itself.
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
 *     records the writers were asked for.
 *
 * Bounds: NSUB = 2 sub-buffers of SUBSZ = 4 units; the task writes
 * NTASK = 2 records, the interrupt NIRQ = 1 and the NMI NNMI = 1, each
 * record 1 or 2 units, chosen nondeterministically, so the buffer wraps;
 * the interrupt and the NMI may arrive before, between or inside any
 * statement of the writers they interrupt, or not at all. Both modes,
 * by -DMODE=DISCARD or -DMODE=OVERWRITE. The search is exhaustive
 * (no bitstate hashing): about 2e7 states, 30 s, 1 GB per mode.
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
 */

#ifndef NSUB
#define NSUB	2
#endif
#define SUBSZ	4
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
byte consumed;		/* buf->consumed */
byte commit[NSUB];	/* buf->cc[].count, bytes, free running */
byte crec[NSUB];	/* records counted with them (upper half of count) */
byte base[NSUB];	/* buf->cc[].base */
byte replaced;		/* buf->replaced */
byte mem[BUFSZ];	/* the sub-buffers; 0 = never written */
byte content[NSUB];	/* packet header content_size */
byte owner[BUFSZ];	/* ghost: writer slot id holding a unit, 0 = free */
byte running = TASK;	/* which context runs on the writer CPU */
byte clock = 1;		/* timestamp source */
byte written, lost, overwritten, delivered;
bool finished;

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

/*
 * Commit @n units and @r records to sub-buffer @i: one add on 64-bit.
 * @lrb_commit_bytes "count = lrb_commit_add(&c->count, bytes);"
 */
inline commit_add(i, n, r)
{
	G d_step { commit[i] = commit[i] + n; crec[i] = crec[i] + r }
}

/*
 * Ghost check, no code: walk the records of the sub-buffer starting at
 * @pos, count them into @n, set @ok to 0 on anything malformed, check
 * timestamps against @last.
 */
inline walk(pos, n, ok, last, u, v, c)
{
    d_step {
	c = content[(pos / SUBSZ) % NSUB];
	if
	:: mem[pos % BUFSZ] != pos / SUBSZ + 1 -> ok = 0
	:: else
	fi;
	u = HDR;
	n = 0;
	do
	:: ok && u < c ->
		v = mem[(pos + u) % BUFSZ];
		if
		:: v % 4 == 1 && v / 4 > last -> last = v / 4; u = u + 1; n++
		:: v % 4 == 2 && v / 4 > last && u + 1 < c &&
		   mem[(pos + u + 1) % BUFSZ] == CONT(v / 4) ->
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
		assert(owner[(from + k) % BUFSZ] == 0);	/* A2 */
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

/* One record of @ln units, from context @me. */
inline write_record(ln)
{
	written++;	/* ghost: records asked for */
	ret = 0;
	do
	:: G old = offset;	/* @lrb_reserve_slow "p.old = local_read(&buf->offset);" */
	   G atomic { ts = clock; clock++ };	/* @lrb_reserve_slow "p.ts = lrb_clock(chan);" */
	   G sw_out = 0; sw_in = 0; begin = old;
	   if
	   :: G (old % SUBSZ != 0 && old % SUBSZ + ln <= SUBSZ) -> skip
	   :: G else ->	/* @lrb_reserve_slow "ret = lrb_reserve_switch(buf, &p, size);" */
		sw_out = (old % SUBSZ != 0);	/* @lrb_reserve_switch "p->switch_out = (p->old & chan->subbuf_mask) != 0;" */
		start = old + (SUBSZ - old % SUBSZ) % SUBSZ;	/* @lrb_reserve_switch "start = ALIGN(p->old, chan->config.subbuf_size);" */
		if
		:: G !PREV_GEN_DONE(start) -> ret = 1	/* @lrb_next_subbuf_free "if (!lrb_commit_done(chan, count, start - size))" */
		:: G else -> mark = crec[(start / SUBSZ) % NSUB]	/* @lrb_next_subbuf_free "*mark = lrb_cc_mark(c, count);" */
		fi;
		if
		:: G ret == 0 ->
			cons = consumed;	/* @lrb_next_subbuf_free "consumed = atomic_long_read_acquire(&buf->consumed);" */
			if
			:: G start < cons -> ret = 2	/* @lrb_next_subbuf_free "if (ahead < 0)" */
			:: G start >= cons && start - cons < BUFSZ -> skip	/* @lrb_next_subbuf_free "if (ahead >= (long)size) {" */
			:: G start >= cons && start - cons >= BUFSZ -> push(cons)
			fi
		:: G else
		fi;
		G begin = start + HDR; sw_in = 1	/* @lrb_reserve_switch "p->begin = start + LRB_PHDR_SIZE;" */
	   fi;
	   if
	   :: G ret == 1 -> break		/* full: dropped */
#ifdef MUTANT_PUSH_FALLTHROUGH
	   :: G ret == 2 ->	/* publish the stale fast-path slot */
		ret = 0; begin = old; sw_in = 0; sw_out = 0;
		atomic {
			if
			:: offset == old -> offset = begin + ln; break
			:: else
			fi
		}
#else
	   :: G ret == 2 -> ret = 0		/* consumed moved: recompute */
#endif
	   :: G ret == 0 ->
#ifdef MUTANT_NO_RETRY
		G offset = begin + ln; break
#else
		G atomic {	/* @lrb_offset_publish "return local_cmpxchg(&buf->offset, old, new) == old;" */
			if
			:: offset == old -> offset = begin + ln; break
			:: else
			fi
		}
#endif
	   fi
	od;
	if
	:: G ret == 1 -> lost++	/* @lrb_reserve_slow "lrb_lost(buf, ret == -E2BIG ? LRB_LOST_TOO_BIG : LRB_LOST_FULL);" */
	:: G ret == 0 ->
		id++;
		claim(begin, ln, me * 16 + id, k);
		if
		:: G sw_out ->	/* @lrb_switch_out "lrb_close_fields(buf, old, content, ts, discarded);" */
			content[(old / SUBSZ) % NSUB] = old % SUBSZ;
			commit_add((old / SUBSZ) % NSUB, SUBSZ - old % SUBSZ, 0)	/* @lrb_switch_out "chan->config.subbuf_size - content, false);" */
		:: G else
		fi;
		if
		:: G sw_in ->
#ifdef MUTANT_MARK_LATE
			mark = crec[(start / SUBSZ) % NSUB];
#endif
			replaced = replaced + mark - base[(start / SUBSZ) % NSUB];	/* @lrb_gen_open "local64_add(lrb_cc_records(c->base, mark), &buf->replaced);" */
			G base[(start / SUBSZ) % NSUB] = mark;	/* @lrb_gen_open "WRITE_ONCE(c->base, mark);" */
			G mem[start % BUFSZ] = start / SUBSZ + 1	/* @lrb_switch_in "ph->packet_seq_num = start >> buf->chan->subbuf_order;" */
		:: G else
		fi;
		if
		:: G (begin + ln) % SUBSZ == 0 ->	/* @lrb_reserve_slow "lrb_close_fields(buf, p.begin, chan->config.subbuf_size, p.ts," */
			content[(begin / SUBSZ) % NSUB] = SUBSZ
		:: G else
		fi;
#ifdef MUTANT_COMMIT_EARLY
		commit_add((begin / SUBSZ) % NSUB, ln + sw_in * HDR, 1);
#endif
		G mem[begin % BUFSZ] = REC(ts, ln);	/* @lrb_slot_fill "lrb_write_header(p, id, len, ts, hlen);" */
		if
		:: G ln == 2 -> mem[(begin + 1) % BUFSZ] = CONT(ts)	/* lrb_write() of the caller */
		:: G else
		fi;
#ifndef MUTANT_COMMIT_EARLY
		/* LRB-W1 smp_wmb(): program order here. */
		commit_add((begin / SUBSZ) % NSUB, ln + sw_in * HDR, 1)	/* @lrb_commit "lrb_commit_bytes(buf, slot->cc_index, slot->commit_size, true);" */
#endif
	fi;
	/* Forget this record's locals: keeps the state space small. */
	d_step {
		old = 0; start = 0; begin = 0; cons = 0; ts = 0; pn = 0;
		pok = 0; plast = 0; ret = 0; sw_out = 0; sw_in = 0; ln = 0;
		mark = 0; wn = 0
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
		walk(cons, wn, pok, plast, pu, pv, pc);
		G atomic {	/* @lrb_push_reader "if (atomic_long_cmpxchg(&buf->consumed, consumed," */
			if
			:: consumed == cons ->
				consumed = cons + SUBSZ;
				assert(pok);	/* complete and not reused: it parses */
				assert(pn == wn);	/* A5 */
				overwritten = overwritten + pn;
				release(cons, k)
			:: else -> ret = 2
			fi
		}
	fi
}

#define WRITER_LOCALS \
	byte old, start, begin, cons, ts, pn, pok, plast, pu, pv, pc, mark, wn; \
	byte ret, k, id; bool sw_out, sw_in; byte ln

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
		offset = old + (SUBSZ - old % SUBSZ);
		content[(old / SUBSZ) % NSUB] = old % SUBSZ;
		commit_add((old / SUBSZ) % NSUB, SUBSZ - old % SUBSZ, 0)
	:: else
	fi;
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

/* The reader, on another CPU. */
proctype reader()
{
	byte pos, cc, rc, n, wn, last = 0, u, v, c, snap, i, sum;
	bool ok;
	byte k;

	do
	:: pos = consumed;	/* @lrb_get_subbuf "pos = atomic_long_read(&buf->consumed);" */
	   d_step { cc = commit[(pos / SUBSZ) % NSUB]; rc = crec[(pos / SUBSZ) % NSUB] }	/* @lrb_get_subbuf "count = local_read(&c->count);" */
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
		/* LRB-R1 smp_rmb(): program order here. */
		n = rc - base[(pos / SUBSZ) % NSUB];	/* @lrb_get_subbuf "n = lrb_cc_records(READ_ONCE(c->base), lrb_cc_mark(c, count));" */
		ok = 1; snap = last; wn = 0;
		walk(pos, wn, ok, snap, u, v, c);
		atomic {	/* @lrb_put_subbuf "if (atomic_long_cmpxchg(&buf->consumed, pos," */
			if
			:: consumed == pos ->
				consumed = pos + SUBSZ;
				assert(ok);	/* A1, A3 */
				assert(n == wn);	/* A5 */
				last = snap;
				delivered = delivered + n;
				release(pos, k)
			:: else	/* overwritten under us: -EIO, counted by the writer */
			fi;
			n = 0; wn = 0; rc = 0; snap = 0; ok = 0; k = 0
		}
	   fi
	od;
	assert(written == delivered + lost + overwritten);	/* A4 */
	/* @lrb_committed "n += lrb_cc_records(READ_ONCE(c->base)," */
	sum = replaced;
	for (i : 0 .. NSUB - 1) {
		sum = sum + crec[i] - base[i]
	}
	assert(sum + lost == written)	/* A6 */
}

init {
	atomic {
		run task();
		run irq();
		run nmi();
		run reader()
	}
}
