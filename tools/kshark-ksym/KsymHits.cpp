// SPDX-License-Identifier: LGPL-2.1
/*
 * KsymHits.cpp - the drawing part of KernelShark's ksym plugin: a marker per
 * ksym_hit on its CPU graph and on its task graph.
 *
 *  - one colour per watched symbol (KsymPalette, watches sorted by address);
 *  - the marker's head tells the access: filled triangle = write, hollow
 *    triangle = read, hollow diamond = an "rw-" hit that cannot be told
 *    (no old value, and the first at its address), filled square = execute;
 *  - every graph with hits in view gets a legend line just above it, in the
 *    spacing KernelShark leaves between graphs (and under the time axis for
 *    the first), where it hides no data: per symbol, in its colour, the
 *    accessing functions and what they did, "ksym_hitgen_var rw-
 *    ksym_hitgen_write_a: 4 W 1 R/W  ksym_hitgen_read: 3 R   ksym_hitgen_u32
 *    -w-  ...", cut with "..." at the right end of the plot;
 *  - a double click on a marker selects its entry (marker A, the table row)
 *    and pins a tooltip beside it: symbol, access, accessing function, value
 *    (and the old value, where the trace has it: ksym_hit_describe()).
 *
 * The accessing function is the attributed caller where the trace has it
 * (ksym_hit's caller field: for a lock word, the lock's taker rather than the
 * lock primitive), and the symbol the watch's name (the sym field).
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "libkshark.h"
#include "libkshark-plugin.h"
#include "libkshark-model.h"
#include "KsCmakeDef.hpp"
#include "KsPlotTools.hpp"
#include "KsPlugins.hpp"
#include "KsPluginsGUI.hpp"

#include "ksym_hits.h"

using namespace KsPlot;

/* The colours of the watches, in address order. Also read by the GUI test. */
static const Color KsymPalette[] = {
	{0xe6, 0x19, 0x4b},	/* red */
	{0x00, 0x82, 0xc8},	/* blue */
	{0x3c, 0xb4, 0x4b},	/* green */
	{0xf5, 0x82, 0x31},	/* orange */
	{0x91, 0x1e, 0xb4},	/* purple */
	{0xf0, 0x32, 0xe6},	/* magenta */
	{0x80, 0x80, 0x00},	/* olive */
	{0x00, 0x80, 0x80},	/* teal */
};

static const int KsymNrColours = sizeof(KsymPalette) / sizeof(KsymPalette[0]);

static void *ksym_gui_ptr;

/* The hit whose tooltip is pinned (double click), per the whole GUI. */
static struct {
	int			sd;
	ssize_t			hit;
	const kshark_entry	*entry;
} ksym_selected = {-1, -1, nullptr};

/* One font for all legends and tooltips, loaded inside paintGL. */
static ksplot_font ksym_font;
static bool ksym_font_failed;

static ksplot_font *ksym_get_font()
{
	if (!ksplot_font_is_loaded(&ksym_font) && !ksym_font_failed) {
		if (!ksplot_init_font(&ksym_font, 13, TT_FONT_FILE))
			ksym_font_failed = true;
	}

	return ksplot_font_is_loaded(&ksym_font) ? &ksym_font : nullptr;
}

__hidden void *plugin_ksym_set_gui_ptr(void *gui_ptr)
{
	ksym_gui_ptr = gui_ptr;
	return nullptr;
}

/* Width of @text in @font, in pixels. */
static float ksym_text_width(const ksplot_font *font, const std::string &text)
{
	float w = 0;

	for (char c: text)
		if (c >= KS_SPACE_CHAR && c <= KS_TILDA_CHAR)
			w += font->cdata[c - KS_SPACE_CHAR].xadvance;
	return w;
}

/*
 * A line of text, optionally on a filled box; drawn only once GL is up. A
 * text that would pass @right starts left of @flip instead (a tooltip beside
 * a marker near the end of the graph).
 */
class KsymText : public PlotObject {
public:
	KsymText(const std::string &text, const Point &pos, bool box,
		 int right = -1, int flip = 0)
	: _text(text), _pos(pos.x(), pos.y()), _box(box), _right(right),
	  _flip(flip) {}

private:
	std::string	_text;
	Point		_pos;	/* bottom-left corner */
	bool		_box;
	int		_right;
	int		_flip;

	void _draw(const Color &col, float size) const override;
};

void KsymText::_draw(const Color &col, float) const
{
	ksplot_font *font = ksym_get_font();
	int x = _pos.x(), y = _pos.y();
	Rectangle r;
	float w;

	if (!font)
		return;

	w = ksym_text_width(font, _text);
	if (_right >= 0 && x + w + 3 > _right && _flip - w - 3 >= 0)
		x = _flip - w - 3;

	/* The baseline of the text. */
	y = y - font->base + font->height - 2;

	if (_box) {
		r.setFill(true);
		r._color = Color(0xff, 0xff, 0xe0);
		r.setPoint(0, x - 3, y + 4);
		r.setPoint(1, x - 3, y - font->height + 4);
		r.setPoint(2, x + w + 3, y - font->height + 4);
		r.setPoint(3, x + w + 3, y + 4);
		r.draw();
		r.setFill(false);
		r._color = col;
		r._size = 1;
		r.draw();
	}

	ksplot_print_text(font, _box ? nullptr : col.color_c_ptr(), x, y,
			  _text.c_str());
}

/*
 * The legend of one graph: one line of segments, each in its symbol's
 * colour, drawn above the graph's top (@top), from @left, cut with "..." at
 * @right. Every glyph's box ends above @top: the legend lies in the spacing
 * over the graph, never on the markers or the task boxes inside it.
 */
class KsymLegend : public PlotObject {
public:
	KsymLegend(int left, int right, int top)
	: _left(left), _right(right), _top(top) {}

	void add(const std::string &text, const Color &col)
	{
		_segs.push_back({text, col});
	}

	bool empty() const { return _segs.empty(); }

private:
	struct Seg {
		std::string	text;
		Color		col;
	};

	std::vector<Seg>	_segs;
	int			_left;
	int			_right;
	int			_top;

	void _draw(const Color &col, float size) const override;
};

/* Space between two symbols' segments of a legend. */
#define KSYM_LEGEND_GAP		"   "

void KsymLegend::_draw(const Color &, float) const
{
	ksplot_font *font = ksym_get_font();
	float x = _left, gap, w, below = 0;
	std::string text;
	int y;

	if (!font)
		return;

	/*
	 * The lowest glyph box (stb_truetype's baked quads: yoff is the box's
	 * top from the baseline, y1 - y0 its height) decides the baseline.
	 */
	for (int c = KS_SPACE_CHAR; c <= KS_TILDA_CHAR; c++) {
		const auto &q = font->cdata[c - KS_SPACE_CHAR];

		if (q.yoff + (q.y1 - q.y0) > below)
			below = q.yoff + (q.y1 - q.y0);
	}
	y = _top - 1 - std::ceil(below);

	gap = ksym_text_width(font, KSYM_LEGEND_GAP);
	for (const auto &seg: _segs) {
		text = seg.text;
		w = ksym_text_width(font, text);
		if (x + w > _right) {
			/* The last that fits, with "..." */
			while (!text.empty() &&
			       x + ksym_text_width(font, text + "...") > _right)
				text.pop_back();
			if (!text.empty() || x + ksym_text_width(font, "...") <= _right)
				ksplot_print_text(font, seg.col.color_c_ptr(),
						  x, y, (text + "...").c_str());
			return;
		}
		ksplot_print_text(font, seg.col.color_c_ptr(), x, y,
				  text.c_str());
		x += w + gap;
	}
}

/* The marker of one hit (or of all hits of one watch in one bin). */
class KsymHitMark : public PlotObject {
public:
	KsymHitMark(const Point &base, int height, int sd, ssize_t hit,
		    const kshark_entry *entry, int kind)
	: _base(base.x(), base.y()), _height(height), _sd(sd), _hit(hit),
	  _entry(entry), _kind(kind) {}

	/* A write in the same bin wins: its head is filled. */
	void merge(ssize_t hit, const kshark_entry *entry, int kind)
	{
		if (_kind != KSYM_HIT_WRITE && kind == KSYM_HIT_WRITE) {
			_kind = kind;
			_hit = hit;
			_entry = entry;
		}
	}

	double distance(int x, int y) const override
	{
		int hw = _halfWidth();
		int dx = x - _base.x(), dy = y - (_base.y() - _height + hw);

		return std::sqrt(dx * dx + dy * dy);
	}

private:
	Point			_base;
	int			_height;
	int			_sd;
	ssize_t			_hit;
	const kshark_entry	*_entry;
	int			_kind;

	int _halfWidth() const { return _height / 4 > 3 ? _height / 4 : 3; }

	void _draw(const Color &col, float size) const override;

	void _doubleClick() const override
	{
		ksym_selected.sd = _sd;
		ksym_selected.hit = _hit;
		ksym_selected.entry = _entry;
		if (ksym_gui_ptr)
			markEntryA(ksym_gui_ptr, _entry);
	}
};

void KsymHitMark::_draw(const Color &col, float size) const
{
	int x = _base.x(), top = _base.y() - _height, hw = _halfWidth();
	Point head(x, top);

	drawLine(_base, head, col, size);

	if (_kind == KSYM_HIT_WRITE || _kind == KSYM_HIT_READ) {
		Triangle t;

		t.setPoint(0, x - hw, top);
		t.setPoint(1, x + hw, top);
		t.setPoint(2, x, top + 2 * hw);
		t.setFill(_kind == KSYM_HIT_WRITE);
		t._color = col;
		t._size = size;
		t.draw();
	} else if (_kind == KSYM_HIT_EXEC) {
		Rectangle r;

		r.setPoint(0, x - hw, top);
		r.setPoint(1, x + hw, top);
		r.setPoint(2, x + hw, top + 2 * hw);
		r.setPoint(3, x - hw, top + 2 * hw);
		r.setFill(true);
		r._color = col;
		r._size = size;
		r.draw();
	} else {
		Polygon d(4);

		d.setPoint(0, x, top);
		d.setPoint(1, x + hw, top + hw);
		d.setPoint(2, x, top + 2 * hw);
		d.setPoint(3, x - hw, top + hw);
		d.setFill(false);
		d._color = col;
		d._size = size;
		d.draw();
	}
}

static std::string ksym_tooltip(plugin_ksym_context *ctx, const ksym_hit *hit)
{
	char *line = ksym_hit_describe(ctx, hit);
	std::string s = line ? line : "";

	free(line);
	return s;
}

/* Hits of one symbol by one accessing function, for the legend. */
struct KsymAccessor {
	int		watch;
	std::string	func;
	ssize_t		count[KSYM_HIT_EXEC + 1];
};

/* Accessing functions named per symbol in a graph's legend. */
#define KSYM_LEGEND_FUNCS	3

static void ksym_legend_add(std::vector<KsymAccessor> *legend,
			    const ksym_hit *hit)
{
	std::string func = hit->func ? hit->func : "?";

	for (auto &acc: *legend) {
		if (acc.watch == hit->watch && acc.func == func) {
			acc.count[hit->kind]++;
			return;
		}
	}

	KsymAccessor acc = {hit->watch, func, {}};
	acc.count[hit->kind]++;
	legend->push_back(acc);
}

/* " 4 W 3 R 1 R/W" */
static std::string ksym_counts(const KsymAccessor &acc)
{
	/* Indexed by enum ksym_hit_kind. */
	static const char *const tag[] = { "R/W", "W", "R", "X" };
	static const int order[] = {
		KSYM_HIT_WRITE, KSYM_HIT_READ, KSYM_HIT_ACCESS, KSYM_HIT_EXEC,
	};
	std::string s;
	char buf[32];

	for (int k: order) {
		if (!acc.count[k])
			continue;
		snprintf(buf, sizeof(buf), " %zd %s", acc.count[k], tag[k]);
		s += buf;
	}

	return s;
}

/* First and last index of the (sorted) hits inside the model's range. */
static bool ksym_range(kshark_trace_histo *histo, kshark_data_container *data,
		       ssize_t *first, ssize_t *last)
{
	ssize_t f, l;

	if (data->size == 0)
		return false;

	f = kshark_find_entry_field_by_time(histo->min, data->data, 0,
					    data->size - 1);
	if (f == BSEARCH_ALL_SMALLER)
		return false;
	if (f == BSEARCH_ALL_GREATER)
		f = 0;

	l = kshark_find_entry_field_by_time(histo->max, data->data, f,
					    data->size - 1);
	if (l == BSEARCH_ALL_GREATER)
		return false;
	if (l == BSEARCH_ALL_SMALLER)
		l = data->size - 1;

	*first = f;
	*last = l;
	return true;
}

/**
 * plugin_ksym_draw - the draw handler: markers, legend and tooltip of one graph
 * @argv_c: KernelShark's C++ arguments (model, graph, list of shapes)
 * @sd: data stream
 * @val: the CPU of a CPU graph or the pid of a task graph
 * @draw_action: KSHARK_CPU_DRAW or KSHARK_TASK_DRAW (others are ignored)
 */
__hidden void plugin_ksym_draw(kshark_cpp_argv *argv_c, int sd, int val,
			       int draw_action)
{
	KsCppArgV *argv = KS_ARGV_TO_CPP(argv_c);
	std::unordered_map<long long, KsymHitMark *> marks;
	std::vector<KsymAccessor> legend;
	plugin_ksym_context *ctx;
	kshark_entry *e;
	ksym_hit *hit;
	ssize_t first, last, i;
	Graph *graph;
	int bin, height;

	if (!(draw_action & (KSHARK_CPU_DRAW | KSHARK_TASK_DRAW)))
		return;

	ctx = __get_context(sd);
	if (!ctx || !ctx->nr_hits || ksym_hits_resolve(ctx))
		return;

	graph = argv->_graph;
	height = graph->height();
	if (!ksym_range(argv->_histo, ctx->data, &first, &last))
		return;

	for (i = first; i <= last; i++) {
		e = ctx->data->data[i]->entry;
		if ((draw_action & KSHARK_CPU_DRAW) ? e->cpu != val
						    : e->pid != val)
			continue;

		bin = ksmodel_get_bin(argv->_histo, e);
		if (bin == UPPER_OVERFLOW_BIN || bin == LOWER_OVERFLOW_BIN ||
		    bin < 0 || bin >= graph->size())
			continue;

		hit = &ctx->hits[ctx->data->data[i]->field];
		ksym_legend_add(&legend, hit);

		long long key = (long long)bin * ctx->nr_watches + hit->watch;
		auto it = marks.find(key);
		if (it != marks.end()) {
			it->second->merge(ctx->data->data[i]->field, e,
					  hit->kind);
			continue;
		}

		KsymHitMark *m = new KsymHitMark(graph->bin(bin)._base, height,
						 sd, ctx->data->data[i]->field,
						 e, hit->kind);
		m->_color = KsymPalette[ctx->watches[hit->watch].colour %
					KsymNrColours];
		m->_size = -1;	/* KernelShark's default line width */
		argv->_shapes->push_front(m);
		marks[key] = m;
	}

	/*
	 * The legend: per symbol with hits here, in its colour, the accessing
	 * functions and what they did. Not on the graphs of a virtual combo:
	 * KernelShark stacks those with no spacing between them.
	 */
	if (draw_action & (KSHARK_HOST_DRAW | KSHARK_GUEST_DRAW))
		legend.clear();
	KsymLegend *lg = new KsymLegend(graph->bin(0)._base.x(),
					graph->bin(graph->size() - 1)._base.x(),
					graph->base() - height);
	for (int w = 0; w < ctx->nr_watches; w++) {
		const ksym_watch *kw = &ctx->watches[w];
		std::string text;
		int shown = 0;

		for (const auto &acc: legend) {
			if (acc.watch != w)
				continue;
			if (shown++ == KSYM_LEGEND_FUNCS) {
				text += "  ...";
				break;
			}
			text += "  " + acc.func + ":" + ksym_counts(acc);
		}
		if (!shown)
			continue;

		lg->add(std::string(kw->name) + " " +
			ksym_access_str(kw->access) + text,
			KsymPalette[kw->colour % KsymNrColours]);
	}
	if (lg->empty())
		delete lg;
	else
		argv->_shapes->push_front(lg);

	/* The pinned tooltip, on the graphs that show the selected hit. */
	if (ksym_selected.sd == sd && ksym_selected.hit >= 0 &&
	    ksym_selected.hit < ctx->nr_hits &&
	    ctx->hits[ksym_selected.hit].entry == ksym_selected.entry) {
		hit = &ctx->hits[ksym_selected.hit];
		e = hit->entry;
		if ((draw_action & KSHARK_CPU_DRAW) ? e->cpu == val
						    : e->pid == val) {
			bin = ksmodel_get_bin(argv->_histo, e);
			if (bin >= 0 && bin < graph->size()) {
				int x = graph->bin(bin)._base.x();
				KsymText *t = new KsymText(ksym_tooltip(ctx, hit),
					Point(x + 8, graph->base() - height / 2),
					true,
					graph->bin(graph->size() - 1)._base.x(),
					x - 8);
				t->_color = KsymPalette[ctx->watches[hit->watch].colour %
							KsymNrColours];
				argv->_shapes->push_front(t);
			}
		}
	}
}
