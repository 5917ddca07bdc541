// Compiled only to produce a precompiled header that kvlab's targets reuse (cmake/KvlabPch.cmake).
