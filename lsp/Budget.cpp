//===- Budget.cpp - Interruption points and the deadline watchdog ---------===//
#include "Budget.h"

namespace ph::lsp {

namespace {
thread_local RequestBudget *current = nullptr;
}

const char *Interrupted::what() const noexcept {
  switch (reason) {
  case Cancelled: return "request cancelled";
  case Deadline: return "request past its deadline";
  case TooLarge: return "request result too large";
  }
  return "request interrupted";
}

bool RequestBudget::stopped(Interrupted::Reason *why) const {
  Interrupted::Reason r;
  if (cancelled()) r = Interrupted::Cancelled;
  else if (expired()) r = Interrupted::Deadline;
  else if (maxItems_ && items_ > maxItems_) r = Interrupted::TooLarge;
  else return false;
  if (why) *why = r;
  return true;
}

void RequestBudget::check(size_t items) {
  items_ += items;
  if (probe) probe(*this);
  Interrupted::Reason why;
  if (stopped(&why)) throw Interrupted(why);
}

RequestScope::RequestScope(RequestBudget *budget) : previous_(current) { current = budget; }
RequestScope::~RequestScope() { current = previous_; }

void checkpoint(size_t items) {
  if (current) current->check(items);
}

bool interruptRequested() {
  if (!current) return false;
  if (current->probe) current->probe(*current);
  return current->stopped();
}

//===----------------------------------------------------------------------===//
// Watchdog
//===----------------------------------------------------------------------===//

Watchdog::Watchdog() : thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t Watchdog::at(Clock::time_point when, std::function<void()> fn) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_++;
    byTime_.emplace(when, id);
    byId_.emplace(id, std::make_pair(when, std::move(fn)));
  }
  cv_.notify_all();
  return id;
}

void Watchdog::cancel(uint64_t id) {
  std::function<void()> dropped; // destroyed outside the lock (it may hold a Reply)
  std::lock_guard<std::mutex> lock(mu_);
  auto it = byId_.find(id);
  if (it == byId_.end()) return;
  auto [from, to] = byTime_.equal_range(it->second.first);
  for (auto t = from; t != to; ++t)
    if (t->second == id) {
      byTime_.erase(t);
      break;
    }
  dropped = std::move(it->second.second);
  byId_.erase(it);
}

size_t Watchdog::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return byId_.size();
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (byTime_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = byTime_.begin();
    if (Clock::now() < first->first) {
      // A copy: wait_until reads its deadline again after each wake-up, and cancel() may
      // erase this entry meanwhile (ASan: heap-use-after-free in reliability.lsp.*).
      const Clock::time_point when = first->first;
      cv_.wait_until(lock, when);
      continue;
    }
    uint64_t id = first->second;
    byTime_.erase(first);
    auto it = byId_.find(id);
    std::function<void()> fn = std::move(it->second.second);
    byId_.erase(it);
    lock.unlock();
    fn(); // outside the lock: it answers the request, which may cancel other entries
    fn = nullptr;
    lock.lock();
  }
}

} // namespace ph::lsp
