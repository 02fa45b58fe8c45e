#pragma once
// Test hooks: the few places where a test reaches into the library to wait for an
// event instead of for time to pass. They are compiled in only when SLUICE_TEST_HOOKS
// is 1, which CMake sets for builds with tests (SLUICE_BUILD_TESTS); a build without
// tests (the Release build that is installed and benchmarked) has none of them, not
// even an empty check on a hot path. Every hook is listed here:
//   - EventLoop::add_turn_observer and remove_turn_observer (core/event_loop.hpp): a
//     test's look at the HTTP thread's state at the end of every turn;
//   - StagingBuffer::on_reader_waits (body/staging_buffer.hpp): a test's word that a
//     reader is really asleep in read();
//   - UploadBudget::set_stall_window (body/upload_budget.hpp): a test lengthens the
//     window in which held upload bodies must move before waiting sends give up.

#ifndef SLUICE_TEST_HOOKS
#define SLUICE_TEST_HOOKS 0
#endif
