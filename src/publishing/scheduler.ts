// Publishing layer: runs stored schedules when they are due. Every instance on a database polls; the
// store claims a schedule inside the transaction that carries it out (StateRequest.schedule), so
// exactly one instance runs each, and one that finds it claimed already writes nothing. A schedule a
// caller made runs with that caller's rights as they are when it runs, never as they were.
import { NodeWriteError, type NodeWriteGuard } from '../repository/node-write.js';
import { runAsUser, type Schedule } from '../store/schedules.js';
import { scheduledRequest, type PublishingStore } from './publisher.js';
import { PeriodicTask } from '../concurrency/periodic-task.js';

/** A few seconds' precision is all the issue asks for; a poll is one indexed read. */
export const SCHEDULER_INTERVAL_MS = 2000;
/** Schedules read per poll; a full batch is followed at once by the next. */
export const SCHEDULER_BATCH = 20;

/** The store calls the scheduler makes (publisher.ts publishingStore gives them over a ContentStore). */
export type SchedulingStore = Pick<PublishingStore, 'dueSchedules' | 'failSchedule' | 'publishState' | 'unpublishState'>;

/** pino's Logger fits; so does a test's recorder. */
export interface SchedulerLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * The rights of a schedule's author now (`petal serve` gives the security service's, reloaded with
 * the users and roles files): the same guard the Commands API gives a caller for a publish at once.
 */
export interface ScheduleRights {
  /**
   * The workspace rights of `user` (undefined: the anonymous caller) as the security configuration
   * gives them now; undefined when there is no such user or it is disabled.
   */
  guardFor(user: string | undefined): NodeWriteGuard | undefined;
}

export interface SchedulerOptions {
  readonly takenAlong: (type: string) => boolean;
  readonly rights: ScheduleRights;
  readonly log: SchedulerLog;
  readonly intervalMs?: number;
  /** The clock deciding what is due (tests). */
  readonly now?: () => Date;
}

/** What one poll did. */
export interface PollResult {
  /** Schedules this instance carried out. */
  readonly ran: number;
  /** Schedules refused (a parent not published, the node gone…): marked failed, never run again. */
  readonly failed: number;
  /** Schedules left for the next poll after an error that was not a refusal (the store down…). */
  readonly retried: number;
}

export class PublishScheduler {
  readonly #store: SchedulingStore;
  readonly #options: SchedulerOptions;
  readonly #task: PeriodicTask;

  constructor(store: SchedulingStore, options: SchedulerOptions) {
    this.#store = store;
    this.#options = options;
    this.#task = new PeriodicTask(async () => {
      await this.poll().catch((err: unknown) => options.log.error({ err }, 'publishing: polling the schedules failed (retried at the next poll)'));
    }, options.intervalMs ?? SCHEDULER_INTERVAL_MS);
  }

  /** Polls now, then every interval; the timer never keeps the process alive. */
  start(): void {
    this.#task.start();
  }

  /** No further polls; resolves once the one running (if any) has finished its current schedule. */
  stop(): Promise<void> {
    return this.#task.stop();
  }

  /** Runs what is due now; the timer's work, callable directly (tests, a CLI). */
  async poll(): Promise<PollResult> {
    let ran = 0;
    let failed = 0;
    let retried = 0;
    for (;;) {
      const now = (this.#options.now?.() ?? new Date()).toISOString();
      const due = await this.#store.dueSchedules(now, SCHEDULER_BATCH);
      let batchRetried = 0;
      for (const schedule of due) {
        if (this.#task.stopped) break;
        const outcome = await this.#run(schedule);
        if (outcome === 'ran') ran++;
        else if (outcome === 'failed') failed++;
        else if (outcome === 'retry') batchRetried++;
      }
      retried += batchRetried;
      // A full batch may hide more due ones; one left for retry would come back, so the next poll takes it.
      if (due.length < SCHEDULER_BATCH || batchRetried > 0 || this.#task.stopped) return { ran, failed, retried };
    }
  }

  async #run(schedule: Schedule): Promise<'ran' | 'claimed' | 'failed' | 'retry'> {
    const { log, takenAlong } = this.#options;
    const what = `${schedule.action} of ${schedule.workspace}:${schedule.path} (schedule ${schedule.id}, due ${schedule.due})`;
    const refuse = async (reason: string, stored: string, message: string) => {
      await this.#store.failSchedule(schedule.id, stored);
      log.warn({ schedule: schedule.id, reason }, `publishing: scheduled ${what} refused: ${message}`);
      return 'failed' as const;
    };
    try {
      // Its author's rights now; none for the operator's.
      const user = runAsUser(schedule.runAs);
      const guard = schedule.runAs === 'operator' ? undefined : this.#options.rights.guardFor(user);
      if (schedule.runAs !== 'operator' && guard === undefined) {
        const gone = `its author ${user ?? ''} is no longer a user, or is disabled`;
        return await refuse('denied', gone, gone);
      }
      const request = scheduledRequest(schedule, takenAlong, guard);
      const r = schedule.action === 'publish' ? await this.#store.publishState(request) : await this.#store.unpublishState(request);
      // Another instance ran it, or it was cancelled, since it was read: nothing was written.
      if (!r.claimed) return 'claimed';
      const version = r.version !== undefined ? ` as version ${r.version.name}` : '';
      log.info({ schedule: schedule.id }, `publishing: scheduled ${what} done: ${r.nodes} nodes${version} by ${schedule.by}`);
      return 'ran';
    } catch (err) {
      if (err instanceof NodeWriteError) return refuse(err.reason, storedReason(schedule, err), err.message);
      log.error({ err, schedule: schedule.id }, `publishing: scheduled ${what} failed (retried at the next poll)`);
      return 'retry';
    }
  }
}

/**
 * What the schedules list shows of a refusal. Whoever may write the schedule's node sees it, who may
 * see less than its author did: a refusal for rights names the schedule's own node only (the log has
 * the store's message, which may name a node below it).
 */
function storedReason(schedule: Schedule, err: NodeWriteError): string {
  if (err.reason !== 'denied') return err.message;
  return `${schedule.by} may no longer ${schedule.action} ${schedule.workspace}:${schedule.path} (or what it takes along) with the rights ${schedule.by} has now`;
}
