-- bench/real/bench.lua - a CPU-heavy Lua workload for the profiler benchmark:
-- recursion, table inserts/sorts/lookups, string building and patterns,
-- closures, coroutines and a little OOP. The first argument is the number
-- of rounds (default 3; one round is about 0.2 s of CPU with a plain -O2 lua
-- on an idle 2 GHz core). The optional second scales each round's work
-- (default 1; bench/real/record_vs_uftrace.sh uses 0.2: about 22 M calls).
local rounds = math.tointeger(tonumber(arg and arg[1]) or 3) or 3
local scale = tonumber(arg and arg[2]) or 1
local function N(n) return math.max(1, math.floor(n * scale)) end
local fib_n = 24 + math.floor(math.log(scale) / math.log(1.618) + 0.5)

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function tables(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % n end
  table.sort(t)
  local h = {}
  for i = 1, n do h["k" .. t[i]] = i end
  local s = 0
  for k, v in pairs(h) do s = s + #k + v end
  for i = n, 1, -3 do table.remove(t) end
  return s + #t
end

local function strings(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("%d:%s;", i, string.rep("x", i % 13)) end
  local s = table.concat(parts)
  local count = 0
  for a, b in s:gmatch("(%d+):(x*);") do count = count + #b + (tonumber(a) % 3) end
  s = s:gsub("x+", function(m) return #m end)
  return count + #s + #(s:upper())
end

local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point:len2() return self.x * self.x + self.y * self.y end
local function objects(n)
  local acc = Point.new(0, 0)
  for i = 1, n do acc = acc:add(Point.new(i % 17, -(i % 5))) end
  return acc:len2()
end

local function closures(n)
  local fs = {}
  for i = 1, 64 do fs[i] = function(x) return (x * i + 3) % 1000003 end end
  local x = 1
  for i = 1, n do x = fs[(i % 64) + 1](x) end
  return x
end

local function coroutines(n)
  local co = coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
    return 0
  end)
  local s = 0
  for _ = 1, n do s = s + co() end
  return s
end

local t0 = os.clock()
local r = 0
for round = 1, rounds do
  r = r + fib(fib_n)
  r = r + tables(N(60000))
  r = r + strings(N(40000))
  r = r + objects(N(300000))
  r = r + closures(N(500000))
  r = r + coroutines(N(100000))
end
print(string.format("bench.lua: result %d, %.2f s CPU", r, os.clock() - t0))
