//===- Budget.h - The bounds of one request: cancel, deadline, size -*- C++ -*-===//
//
// A feature request may meet a hostile input (a 4 MiB document, a program with
// thousands of kernels, every token of a giant file to classify). Its work is
// bounded three ways, checked at interruption points between the items it
// walks (tokens, symbols, occurrences, the analysis's items):
//   - `$/cancelRequest`: the work stops, the answer is RequestCancelled;
//   - a deadline from the request's arrival: the watchdog (a thread of its own,
//     so it fires even when every worker is busy) answers RequestFailed at once
//     and the work stops at its next interruption point;
//   - a cap on the result's elements (the memory a result may take): RequestFailed.
// The features do not take the budget as a parameter: the worker makes it the
// thread's current request (RequestScope) and `checkpoint()` reads it, so code
// shared with non-request paths (publishing diagnostics) runs unbounded.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "JsonRpc.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace ph::lsp {

/// Thrown at an interruption point: why the request's work stopped.
class Interrupted : public std::exception {
public:
  enum Reason { Cancelled, Deadline, TooLarge };
  explicit Interrupted(Reason r) : reason(r) {}
  const char *what() const noexcept override;
  Reason reason;
};

class RequestBudget {
public:
  /// `maxItems`: result elements the request may produce (0: no cap).
  RequestBudget(std::shared_ptr<CancelState> cancel, size_t maxItems) : cancel_(std::move(cancel)), maxItems_(maxItems) {}

  /// The deadline passed (the watchdog calls it).
  void expire() { expired_.store(true, std::memory_order_release); }
  bool expired() const { return expired_.load(std::memory_order_acquire); }
  bool cancelled() const { return cancel_ && cancel_->cancelled(); }
  /// Whether the work must stop, and why (the first reason that holds).
  bool stopped(Interrupted::Reason *why = nullptr) const;
  /// Counts `items` more result elements; throws Interrupted when the work must stop.
  void check(size_t items);
  size_t items() const { return items_; }

  /// Tests: called at every interruption point of this request, before the check.
  std::function<void(const RequestBudget &)> probe;

private:
  std::shared_ptr<CancelState> cancel_;
  std::atomic<bool> expired_{false};
  size_t maxItems_;
  size_t items_ = 0; // only the worker doing the request touches it
};

/// Makes `budget` the calling thread's current request for its lifetime.
class RequestScope {
public:
  explicit RequestScope(RequestBudget *budget);
  ~RequestScope();
  RequestScope(const RequestScope &) = delete;
  RequestScope &operator=(const RequestScope &) = delete;

private:
  RequestBudget *previous_;
};

/// An interruption point: throws Interrupted when the thread's current request (if
/// any) was cancelled, ran past its deadline, or has produced more than its cap of
/// result elements (`items`: the elements added since the last call).
void checkpoint(size_t items = 0);
/// The same without throwing (for callbacks of code that cannot unwind through
/// them, the frontend's): true when the current request must stop.
bool interruptRequested();

/// Runs callbacks at given times on a thread of its own.
class Watchdog {
public:
  using Clock = std::chrono::steady_clock;
  Watchdog();
  ~Watchdog(); // callbacks not run yet are dropped
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  /// Calls `fn` at `when` (at once if past) unless `cancel(id)` comes first.
  uint64_t at(Clock::time_point when, std::function<void()> fn);
  void cancel(uint64_t id);
  size_t pending() const;

private:
  void loop();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<Clock::time_point, uint64_t> byTime_;
  std::map<uint64_t, std::pair<Clock::time_point, std::function<void()>>> byId_;
  uint64_t next_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace ph::lsp
